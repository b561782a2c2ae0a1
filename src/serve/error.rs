//! The API's errors: a status, a code and a message, sent as `{"error": "...", "code": "..."}`.
//! The message is English for a developer reading the API; the code is what the page translates
//! into the player's language (it never shows the message), so every error a player can meet has
//! a code of its own ([`codes`]).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// Seconds a refused client is told to wait (the `Retry-After` of a 429 or 503).
pub const RETRY_AFTER_SECONDS: &str = "2";

/// The codes of the errors the board can meet (the page has words for each, in each language;
/// `tests/serve.rs` checks that every code here has them).
pub mod codes {
    /// A request that cannot be read (a developer's mistake, not a player's).
    pub const BAD_REQUEST: &str = "bad_request";
    /// Rules the server does not play (too many seeds on the board, an unknown option).
    pub const BAD_RULES: &str = "bad_rules";
    /// A game record that cannot be read.
    pub const BAD_RECORD: &str = "bad_record";
    /// A position that cannot be read.
    pub const BAD_POSITION: &str = "bad_position";
    /// A move that is not legal here (an empty pit, a pit that does not exist).
    pub const ILLEGAL_MOVE: &str = "illegal_move";
    /// The game (or the pasted position) is over.
    pub const GAME_OVER: &str = "game_over";
    /// It is the computer's move, not the player's (or the other way round).
    pub const NOT_YOUR_MOVE: &str = "not_your_move";
    /// Nothing to undo.
    pub const NOTHING_TO_UNDO: &str = "nothing_to_undo";
    /// Nothing to redo.
    pub const NOTHING_TO_REDO: &str = "nothing_to_redo";
    /// No move played yet: nothing to review.
    pub const NOTHING_TO_REVIEW: &str = "nothing_to_review";
    /// The game is busy: the computer is thinking.
    pub const GAME_BUSY: &str = "game_busy";
    /// The game changed while the work for it ran: ask again.
    pub const GAME_CHANGED: &str = "game_changed";
    /// The game does not exist (deleted, dropped after being idle, pushed out).
    pub const GAME_GONE: &str = "game_gone";
    /// The request was cancelled (its client went away).
    pub const CANCELLED: &str = "cancelled";
    /// Too much work queued, or no room for another rule set's solver: try again shortly.
    pub const BUSY: &str = "busy";
    /// The server is stopping.
    pub const STOPPING: &str = "stopping";
    /// A request the server refuses for its Host, Origin or Content-Type.
    pub const FORBIDDEN: &str = "forbidden";
    /// No such page or route, or a method the route does not take.
    pub const NOT_FOUND: &str = "not_found";
    /// The server's own failure.
    pub const INTERNAL: &str = "internal";

    /// Every code, for the test that the page has words for each.
    pub const ALL: [&str; 19] = [
        BAD_REQUEST,
        BAD_RULES,
        BAD_RECORD,
        BAD_POSITION,
        ILLEGAL_MOVE,
        GAME_OVER,
        NOT_YOUR_MOVE,
        NOTHING_TO_UNDO,
        NOTHING_TO_REDO,
        NOTHING_TO_REVIEW,
        GAME_BUSY,
        GAME_CHANGED,
        GAME_GONE,
        CANCELLED,
        BUSY,
        STOPPING,
        FORBIDDEN,
        NOT_FOUND,
        INTERNAL,
    ];
}

/// A refused request: the status (4xx for bad input, 5xx for the server's own trouble), a code
/// from [`codes`] and what was wrong, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What kind of error, for the page to say in the player's language (one of [`codes`]).
    pub code: &'static str,
    /// What was wrong.
    pub message: String,
}

impl ApiError {
    /// An error of `status` and `code`.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    /// The same error with another code.
    pub fn with_code(mut self, code: &'static str) -> ApiError {
        self.code = code;
        self
    }

    /// A request that cannot be read (400).
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, codes::BAD_REQUEST, message)
    }

    /// A well-formed request that the game refuses, such as an illegal move (422).
    pub fn unprocessable(message: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            codes::ILLEGAL_MOVE,
            message,
        )
    }

    /// A request that does not fit the game's state: wrong turn, game over, busy (409); the code
    /// says which.
    pub fn conflict(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, code, message)
    }

    /// Something that does not exist (404).
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, codes::NOT_FOUND, message)
    }

    /// A request refused for load: a queue or a client's share is full (429, with Retry-After).
    pub fn busy(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::TOO_MANY_REQUESTS, codes::BUSY, message)
    }

    /// The server's own failure (500).
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, codes::INTERNAL, message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = axum::Json(serde_json::json!({ "error": self.message, "code": self.code }));
        let mut r = (self.status, body).into_response();
        if matches!(
            self.status,
            StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE
        ) {
            r.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from_static(RETRY_AFTER_SECONDS),
            );
        }
        r
    }
}
