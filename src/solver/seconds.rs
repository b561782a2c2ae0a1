//! Time limits taken from outside the program (a flag, a request): their one range check, so that
//! no value, however large, negative or not a number, reaches [`Duration::from_secs_f64`] (which
//! panics past its range).

use std::time::Duration;

/// The longest time limit accepted anywhere: 366 days, in seconds.
pub const MAX_SECONDS: f64 = 366.0 * 86_400.0;

/// `value` seconds as a duration: a finite number from 0 to [`MAX_SECONDS`]; the error says the
/// range (the caller names the flag or field).
pub fn seconds(value: f64) -> Result<Duration, String> {
    if value.is_finite() && (0.0..=MAX_SECONDS).contains(&value) {
        // `+ 0.0` turns -0 into 0.
        Duration::try_from_secs_f64(value + 0.0).map_err(|e| format!("{value}: {e}"))
    } else {
        Err(format!(
            "{value} is out of range: give a number of seconds from 0 to {MAX_SECONDS:.0}"
        ))
    }
}

/// A flag's seconds from its text (see [`seconds`]); 0 allowed.
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number of seconds"))?;
    seconds(value)
}

/// A flag's seconds from its text, more than 0 (see [`seconds`]).
pub fn parse_positive_seconds(text: &str) -> Result<Duration, String> {
    let d = parse_seconds(text)?;
    if d.is_zero() {
        return Err(format!(
            "'{text}' is not a time limit: give a number of seconds above 0 and at most {MAX_SECONDS:.0}"
        ));
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_duration_would_panic_on() {
        for bad in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -1.0,
            -1e-9,
            1e30,
            MAX_SECONDS * 1.0001,
            f64::MAX,
        ] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        for text in ["1e30", "inf", "NaN", "-5", "", "abc", "1e400", "0x10"] {
            assert!(parse_seconds(text).is_err(), "{text}");
        }
        assert_eq!(seconds(-0.0), Ok(Duration::ZERO));
        assert_eq!(parse_seconds("2.5"), Ok(Duration::from_millis(2500)));
        assert!(parse_positive_seconds("0").is_err());
        assert!(seconds(MAX_SECONDS).is_ok());
    }
}
