//! The JSON API's handlers: each reads its input in full before it changes anything, so a refused
//! request leaves the game as it was.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Extension, Path, Query, State};
use axum::response::Html;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::engine::{Engines, preset_rules};
use super::error::{ApiError, codes};
use super::game::{GameState, judge_move, level_name, move_from_json, move_json, rules_json};
use super::guard::{Client, Guard};
use super::jobs::{Job, Jobs, Place, Watch};
use super::store::Store;
use crate::bots::BotView;
use crate::bots::guard::{Proof, guard};
use crate::play::Level;
use crate::rules::{Game, Position, Preset, RuleChoices, Rules, Side};
use crate::solver::{Analysis, Detail};

/// The page, embedded in the binary.
const PAGE: &str = include_str!("page.html");

/// What every handler shares.
pub struct App {
    /// Networks, solvers, time limits.
    pub engines: Engines,
    /// The games.
    pub store: Store,
    /// The work off the request path: the heavy-job queue, cancellation, counts.
    pub jobs: Jobs,
    /// The checks before every handler: Host, Origin, Content-Type; the client.
    pub guard: Guard,
}

type AppState = State<Arc<App>>;
type Body = Result<Bytes, BytesRejection>;
type Reply = Result<Json<Value>, ApiError>;
type Who = Extension<Client>;

/// Reads a JSON body (an empty body reads as `{}`); the error names the field at fault (every
/// body refuses unknown keys).
fn parse<T: DeserializeOwned>(body: Body) -> Result<T, ApiError> {
    let bytes = body.map_err(|e| {
        ApiError::new(
            e.status(),
            codes::BAD_REQUEST,
            format!("body refused: {}", e.body_text()),
        )
    })?;
    let text: &[u8] = if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        b"{}"
    } else {
        &bytes
    };
    let de = &mut serde_json::Deserializer::from_slice(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            ApiError::bad(format!("bad JSON body: {inner}"))
        } else {
            ApiError::bad(format!("bad JSON body: '{path}': {inner}"))
        }
    })
}

/// Reads the query string.
fn query(
    q: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<HashMap<String, String>, ApiError> {
    q.map(|Query(m)| m)
        .map_err(|e| ApiError::bad(format!("bad query: {}", e.body_text())))
}

/// Resolves the rules of a request: the API takes the one rule-choice type, [`RuleChoices`] (a
/// preset, then options on top of it; the same keys as the command line and the configs).
fn build_rules(r: &RuleChoices) -> Result<Rules, ApiError> {
    r.build()
        .map_err(|e| ApiError::bad(format!("rules: {e}")).with_code(codes::BAD_RULES))
}

fn level(text: Option<&str>) -> Result<Level, ApiError> {
    text.unwrap_or("medium")
        .parse()
        .map_err(|e: String| ApiError::bad(format!("level: {e}")))
}

/// `GET /`: the page.
pub async fn page() -> Html<&'static str> {
    Html(PAGE)
}

/// Any other path: a JSON 404.
pub async fn not_found() -> ApiError {
    ApiError::not_found("no such page or API route")
}

/// A known path with the wrong method: a JSON 405.
pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        codes::NOT_FOUND,
        "method not allowed on this route",
    )
}

/// The levels under `rules`: each level's name (`easy`, `medium`, `hard`, `strongest`), the bot
/// spec it plays (as `kalaha play --opponent` takes it: no path of the server), and the release
/// id of its network where it plays one.
fn levels_json(engines: &Engines, rules: &Rules) -> Value {
    let levels: Vec<Value> = [Level::Easy, Level::Medium, Level::Hard, Level::Perfect]
        .iter()
        .map(|&l| {
            json!({
                "level": level_name(l),
                "bot": engines.spec(l, rules),
                "network": engines.release(l, rules),
            })
        })
        .collect();
    json!({
        "rules": rules_json(rules),
        "levels": levels,
        "network": engines.release(Level::Hard, rules),
    })
}

/// `GET /api/info`: the presets, each with its levels' bots, and the limits.
pub async fn info(State(app): AppState) -> Reply {
    let presets: Vec<Value> = preset_rules()
        .iter()
        .map(|r| {
            let base = r.with_pie(false);
            let name = Preset::ALL
                .iter()
                .find(|p| p.rules() == base)
                .map_or("custom", |p| p.name());
            let mut v = levels_json(&app.engines, r);
            v["preset"] = json!(name);
            v
        })
        .collect();
    let l = &app.engines.limits;
    Ok(Json(json!({
        "presets": presets,
        "limits": {
            "strongest_move_seconds": l.perfect_move.as_secs_f64(),
            "hint_seconds": l.hint.as_secs_f64(),
            "review_seconds_per_move": l.review.as_secs_f64(),
            "analyse_seconds": l.analyse.as_secs_f64(),
        },
        "rules_limits": {
            "max_pits": crate::rules::MAX_PITS,
            "max_seeds_on_board": crate::rules::MAX_SEEDS,
        },
        "games": app.store.len(),
        "jobs": app.jobs.json(),
        "solvers": app.engines.solvers.json(),
        "networks": app.engines.networks_json(),
        "network_evaluations": app.engines.evaluations_json(),
    })))
}

/// `POST /api/levels`: the bots of every level under the rules in the body.
pub async fn levels(State(app): AppState, body: Body) -> Reply {
    let r: RuleChoices = parse(body)?;
    Ok(Json(levels_json(&app.engines, &build_rules(&r)?)))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateIn {
    rules: Option<RuleChoices>,
    level: Option<String>,
    side: Option<String>,
    practice: Option<bool>,
    record: Option<String>,
    seed: Option<u64>,
}

/// `POST /api/games`: a new game (rules, level, the person's seat, practice; or from a record).
pub async fn create(State(app): AppState, Extension(Client(client)): Who, body: Body) -> Reply {
    let c: CreateIn = parse(body)?;
    let game = match (&c.record, &c.rules) {
        (Some(_), Some(_)) => {
            return Err(ApiError::bad(
                "give either 'rules' or 'record' (which holds its rules), not both",
            ));
        }
        (Some(text), None) => {
            super::record::read(text).map_err(|e| ApiError::bad(e).with_code(codes::BAD_RECORD))?
        }
        (None, r) => Game::new(&r.as_ref().map_or(Ok(Rules::kalah64()), build_rules)?),
    };
    let level = level(c.level.as_deref())?;
    let human = match c.side.as_deref().unwrap_or("south") {
        "south" | "s" => Side::South,
        "north" | "n" => Side::North,
        other => {
            return Err(ApiError::bad(format!(
                "side: unknown side '{other}' (expected south or north)"
            )));
        }
    };
    let practice = c.practice.unwrap_or(false);
    let seed = c.seed.unwrap_or_else(|| getrandom::u64().unwrap_or(0));
    let a = Arc::clone(&app);
    let job = Job {
        kind: "new game",
        place: if level == Level::Perfect {
            Place::Heavy
        } else {
            Place::Free
        },
        game: None,
        follows_request: false,
        client,
    };
    let state = app
        .jobs
        .run(job, move |_| {
            a.engines.new_game(game, level, human, practice, seed)
        })
        .await??;
    let (id, shared) = app.store.insert(state, client)?;
    let g = shared.lock().await;
    let n = g.game.history().len();
    Ok(Json(g.json(&id, n)))
}

async fn locked(app: &App, id: &str) -> Result<tokio::sync::OwnedMutexGuard<GameState>, ApiError> {
    app.store
        .get(id)?
        .try_lock_owned()
        .map_err(|_| ApiError::conflict(codes::GAME_BUSY, "the game is busy: the bot is thinking"))
}

/// Plays the bot's turn of game `id` off the async path; cancelled (nothing played, an error
/// returned) if the game is deleted or dropped meanwhile. A client that goes away does not cancel
/// it: the move is played and shown at the next request.
async fn bot_turn(
    app: &Arc<App>,
    client: std::net::IpAddr,
    id: &str,
    mut g: tokio::sync::OwnedMutexGuard<GameState>,
) -> Result<tokio::sync::OwnedMutexGuard<GameState>, ApiError> {
    let job = Job {
        kind: "bot move",
        place: g.bot_place(),
        game: Some(g.watch(id, false)),
        follows_request: false,
        client,
    };
    let engines = Arc::clone(app);
    app.jobs
        .run(job, move |cancel| {
            // The strongest level takes its rules' solver for this turn only.
            let solver = match g.needs_solver() {
                true => Some(engines.engines.solver(g.rules())?),
                false => None,
            };
            g.play_bot(cancel, solver.as_deref());
            Ok(g)
        })
        .await?
}

/// `GET /api/games/{id}`: the game's state.
pub async fn state(State(app): AppState, Path(id): Path<String>) -> Reply {
    let g = locked(&app, &id).await?;
    let n = g.game.history().len();
    Ok(Json(g.json(&id, n)))
}

/// `DELETE /api/games/{id}`: drops the game.
pub async fn delete(State(app): AppState, Path(id): Path<String>) -> Reply {
    app.store.remove(&id)?;
    Ok(Json(json!({"deleted": id})))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveIn {
    #[serde(rename = "move")]
    mv: Option<Value>,
    reply: Option<bool>,
}

/// `POST /api/games/{id}/move`: the person's move, then (unless `reply` is false) the bot's.
pub async fn play(
    State(app): AppState,
    Extension(Client(client)): Who,
    Path(id): Path<String>,
    body: Body,
) -> Reply {
    let m: MoveIn = parse(body)?;
    let mv = move_from_json(
        m.mv.as_ref()
            .ok_or_else(|| ApiError::bad("missing 'move': a pit number or \"swap\""))?,
    )?;
    let mut g = locked(&app, &id).await?;
    let from = g.game.history().len();
    g.play_human(mv)?;
    if m.reply.unwrap_or(true) && g.bot_to_move() {
        g = bot_turn(&app, client, &id, g).await?;
    }
    Ok(Json(g.json(&id, from)))
}

/// The body of a request that takes none: empty or `{}` (a key is refused, as everywhere).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Nothing {}

/// `POST /api/games/{id}/bot`: the bot's turn, when it is the bot's.
pub async fn bot(
    State(app): AppState,
    Extension(Client(client)): Who,
    Path(id): Path<String>,
    body: Body,
) -> Reply {
    let Nothing {} = parse(body)?;
    let g = locked(&app, &id).await?;
    if g.position().is_over() {
        return Err(ApiError::conflict(codes::GAME_OVER, "the game is over"));
    }
    if g.seats.practice {
        return Err(ApiError::conflict(
            codes::NOT_YOUR_MOVE,
            "practice mode has no bot: you play both sides",
        ));
    }
    if !g.bot_to_move() {
        return Err(ApiError::conflict(
            codes::NOT_YOUR_MOVE,
            "it is your move, not the bot's",
        ));
    }
    let from = g.game.history().len();
    let g = bot_turn(&app, client, &id, g).await?;
    Ok(Json(g.json(&id, from)))
}

/// `POST /api/games/{id}/undo`.
pub async fn undo(State(app): AppState, Path(id): Path<String>, body: Body) -> Reply {
    let Nothing {} = parse(body)?;
    let mut g = locked(&app, &id).await?;
    let n = g.undo()?;
    let len = g.game.history().len();
    let mut v = g.json(&id, len);
    v["undone"] = json!(n);
    Ok(Json(v))
}

/// `POST /api/games/{id}/redo`.
pub async fn redo(State(app): AppState, Path(id): Path<String>, body: Body) -> Reply {
    let Nothing {} = parse(body)?;
    let mut g = locked(&app, &id).await?;
    let from = g.game.history().len();
    let n = g.redo()?;
    let mut v = g.json(&id, from);
    v["redone"] = json!(n);
    Ok(Json(v))
}

/// `GET /api/games/{id}/record`: the record in the project's notation.
pub async fn record_text(State(app): AppState, Path(id): Path<String>) -> Reply {
    let g = locked(&app, &id).await?;
    Ok(Json(
        json!({"record": g.record(), "moves": g.game.move_list()}),
    ))
}

/// A view and an analysis as JSON, keyed as `kalaha analyse --json` (`bot` is the spec the
/// server names, without a path), with each move's proof (`optimal`, `keeps_result`,
/// `not_proven`; `changes_result` where the solver proved the move throws the result away) and
/// the `hint`: the move to play.
///
/// The hint is chosen as the strongest level chooses: a move proven best if there is one, else
/// one proven to keep the result, else one of the moves not proven to change it; among those,
/// the view's (the network's search, or minimax's) favourite. It says what the move does
/// (`extra_turn`, `captured`, `swapped`, `game_over`), what it is proven to reach (`lower`,
/// `upper`: bounds on the final margin for the player to move, equal when exact; `null` where
/// the solver was not asked) and its `proof`. Where nothing is proven, `proof` is `not_proven`:
/// the bounds are then those of the whole game and mean nothing, which the page says instead of
/// showing them.
fn analysis_json(
    pos: &Position,
    bot: Option<&str>,
    view: Option<&BotView>,
    solved: Option<&Analysis>,
) -> Value {
    let exact = |mv| solved.and_then(|s| s.moves.iter().find(|m| m.mv == mv));
    let g = solved.map(guard);
    let proof = |mv| g.as_ref().map_or(Proof::NotProven, |g| g.proof_of(mv));
    let changes = |mv| {
        g.as_ref()
            .is_some_and(|g| exact(mv).is_some() && !g.allowed.contains(&mv))
    };
    let moves: Vec<Value> = pos
        .legal_moves()
        .iter()
        .map(|mv| {
            let v = view.and_then(|v| v.moves.iter().find(|m| m.mv == mv));
            json!({
                "move": move_json(mv),
                "prior": v.and_then(|m| m.prior),
                "visits": v.and_then(|m| m.visits),
                "q": v.and_then(|m| m.q),
                "minimax": v.and_then(|m| m.minimax),
                "lower": exact(mv).map(|e| e.lower),
                "upper": exact(mv).map(|e| e.upper),
                "after": pos.after(mv).map(|(p, _)| p.to_string()).ok(),
                "proof": proof(mv).name(),
                "changes_result": changes(mv),
            })
        })
        .collect();
    let hint = hint_move(pos, view, g.as_ref()).map(|mv| {
        let (_, outcome) = pos
            .after(mv)
            .expect("the hint is one of the position's legal moves");
        json!({
            "move": move_json(mv),
            "proof": proof(mv).name(),
            "extra_turn": outcome.extra_turn,
            "captured": outcome.captured,
            "swapped": outcome.swapped,
            "game_over": outcome.game_over,
            "lower": exact(mv).map(|e| e.lower),
            "upper": exact(mv).map(|e| e.upper),
        })
    });
    json!({
        "position": pos.to_string(),
        "rules": pos.rules().describe(),
        "to_move": pos.to_move().letter().to_string(),
        "bot": view.and(bot),
        "choice": view.map(|v| move_json(v.choice)),
        "network": view.and_then(|v| v.network.as_ref()),
        "moves": moves,
        "hint": hint,
        "best": solved.map(|s| s.best().into_iter().map(move_json).collect::<Vec<_>>()),
        "solver": solved.map(|s| json!({
            "lower": s.lower, "upper": s.upper, "complete": s.complete(), "seconds": s.seconds,
            "proven": g.as_ref().is_some_and(|g| g.lower == g.upper),
        })),
    })
}

/// The move a hint names (see [`analysis_json`]): among the guard's choices (every legal move
/// without a proof), the view's choice, else its most visited, likeliest or best scored move,
/// else the first.
fn hint_move(
    pos: &Position,
    view: Option<&BotView>,
    g: Option<&crate::bots::guard::Guard>,
) -> Option<crate::rules::Move> {
    let legal: Vec<_> = pos.legal_moves().iter().collect();
    let candidates: &[_] = match g.map(|g| g.choices().0) {
        Some(c) if !c.is_empty() => c,
        _ => &legal,
    };
    let score = |mv: crate::rules::Move| {
        let v = view.and_then(|v| v.moves.iter().find(|m| m.mv == mv));
        (
            view.is_some_and(|v| v.choice == mv),
            v.and_then(|m| m.visits).unwrap_or(0),
            v.and_then(|m| m.prior).map_or(0, |p| (p * 1e6) as i64),
            v.and_then(|m| m.minimax).unwrap_or(i32::MIN),
        )
    };
    // The first of the best-scored (max_by_key keeps the last of equals).
    candidates.iter().rev().copied().max_by_key(|&mv| score(mv))
}

/// Seconds from the request's `field`: a number from 0 to
/// [`MAX_SECONDS`](crate::solver::seconds::MAX_SECONDS) (any other is a 400
/// naming the field), cut to `max`, the server's limit for the work; `max` when absent.
fn seconds(field: &str, value: Option<f64>, max: Duration) -> Result<Duration, ApiError> {
    match value {
        None => Ok(max),
        Some(v) => crate::solver::seconds::seconds(v)
            .map(|d| d.min(max))
            .map_err(|e| ApiError::bad(format!("'{field}': {e}"))),
    }
}

/// [`seconds`] from a query parameter's text.
fn seconds_text(field: &str, text: Option<&str>, max: Duration) -> Result<Duration, ApiError> {
    let value = text
        .map(|t| {
            t.trim().parse::<f64>().map_err(|_| {
                ApiError::bad(format!(
                    "'{field}': '{}' is not a number of seconds",
                    t.escape_default()
                ))
            })
        })
        .transpose()?;
    seconds(field, value, max)
}

/// The network's view (level hard's network, or minimax:6 where no network plays these rules)
/// and the solver's proof within `limit` (none for 0). Both are cancelled when the
/// client goes away and, for a hint, when `watch`'s game is dropped or moves on.
async fn analyse_position(
    app: &Arc<App>,
    pos: Position,
    limit: Duration,
    seed: u64,
    watch: Option<Watch>,
    client: std::net::IpAddr,
) -> Result<Value, ApiError> {
    let player = match app.engines.network(pos.rules()) {
        Some(p) => p.clone(),
        None => crate::bots::BotContext::new()
            .prepare(&crate::bots::BotSpec::Minimax(6), pos.rules())
            .map_err(|e| ApiError::internal(format!("{e:#}")))?,
    };
    let bot = match app.engines.network(pos.rules()) {
        Some(_) => app.engines.spec(Level::Hard, pos.rules()),
        None => player.to_string(),
    };
    let job = |kind| Job {
        kind,
        place: Place::Heavy,
        game: watch.clone(),
        follows_request: true,
        client,
    };
    let view = app
        .jobs
        .run(job("network view"), move |_| {
            crate::bots::view::view(&player, &pos, seed)
        })
        .await?;
    let solved = if limit.is_zero() {
        None
    } else {
        let a = Arc::clone(app);
        Some(
            app.jobs
                .run(job("proof"), move |cancel| -> Result<Analysis, ApiError> {
                    Ok(a.engines.solver(pos.rules())?.analyse_cancellable(
                        &pos,
                        Some(limit),
                        Detail::All,
                        None,
                        &cancel.flags(),
                    ))
                })
                .await??,
        )
    };
    Ok(analysis_json(
        &pos,
        Some(&bot),
        Some(&view),
        solved.as_ref(),
    ))
}

/// `GET /api/games/{id}/hint?time=S`: the network's view of the position now, and the solver's
/// values proven within S seconds (0: the network alone; at most the server's hint limit).
/// Cancelled if the game is deleted or changes meanwhile.
pub async fn hint(
    State(app): AppState,
    Extension(Client(client)): Who,
    Path(id): Path<String>,
    q: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Reply {
    let q = query(q)?;
    let limit = seconds_text(
        "time",
        q.get("time").map(|s| s.as_str()),
        app.engines.limits.hint,
    )?;
    let (pos, seed, watch) = {
        let g = locked(&app, &id).await?;
        (
            *g.position(),
            g.game.history().len() as u64,
            g.watch(&id, true),
        )
    };
    if pos.is_over() {
        return Err(ApiError::conflict(
            codes::GAME_OVER,
            "the game is over: there is no move to hint",
        ));
    }
    Ok(Json(
        analyse_position(&app, pos, limit, seed, Some(watch), client).await?,
    ))
}

/// `GET /api/games/{id}/review`: every move judged by the solver (best moves, seeds lost).
/// Each position is judged once a game: a review after more moves judges only the new ones
/// (`reused`: the moves judged by an earlier review). Cancelled if the game is deleted or
/// changes meanwhile, or its client leaves (a review of moves no longer played is never
/// returned).
pub async fn review(
    State(app): AppState,
    Extension(Client(client)): Who,
    Path(id): Path<String>,
) -> Reply {
    let (history, rules, generation, watch, known) = {
        let g = locked(&app, &id).await?;
        (
            g.game.history().to_vec(),
            *g.rules(),
            g.generation(),
            g.watch(&id, true),
            g.reviewed(),
        )
    };
    if history.is_empty() {
        return Err(ApiError::conflict(
            codes::NOTHING_TO_REVIEW,
            "no move has been played yet",
        ));
    }
    let reused = known.len();
    let limit = app.engines.limits.review;
    // Only the positions no earlier review of this game judged.
    let todo: Vec<Position> = history[reused..].iter().map(|p| p.before).collect();
    let fresh = if todo.is_empty() {
        Vec::new()
    } else {
        let a = Arc::clone(&app);
        let job = Job {
            kind: "review",
            place: Place::Heavy,
            game: Some(watch),
            follows_request: true,
            client,
        };
        app.jobs
            .run(job, move |cancel| -> Result<Vec<Analysis>, ApiError> {
                Ok(a.engines
                    .solver(&rules)?
                    .judge_cancellable(&todo, Some(limit), &cancel.flags()))
            })
            .await??
    };
    let mut g = locked(&app, &id).await?;
    if g.generation() != generation {
        return Err(ApiError::conflict(
            codes::GAME_CHANGED,
            format!("game '{id}' changed while its review ran: ask again"),
        ));
    }
    let judged: Vec<Analysis> = known.into_iter().chain(fresh).collect();
    g.keep_review(&judged);
    let history = g.game.history();
    let items: Vec<_> = judged
        .iter()
        .zip(history)
        .enumerate()
        .map(|(i, (a, p))| {
            let after = history.get(i + 1).map_or(*g.position(), |n| n.before);
            judge_move(i, p, &after, a)
        })
        .collect();
    let mistakes: Vec<usize> = items
        .iter()
        .filter(|j| j.mistake)
        .map(|j| j.index)
        .collect();
    let lost = |side: &str| -> i32 {
        items
            .iter()
            .filter(|j| j.side == side)
            .filter_map(|j| j.loss)
            .sum()
    };
    Ok(Json(json!({
        "moves": items,
        "mistakes": mistakes,
        "proven": items.iter().filter(|j| j.loss.is_some()).count(),
        "seeds_lost": {"s": lost("s"), "n": lost("n")},
        "seconds_per_move": limit.as_secs_f64(),
        "reused": reused,
    })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalyseIn {
    rules: Option<RuleChoices>,
    position: Option<String>,
    time_limit: Option<f64>,
}

/// `POST /api/analyse`: a pasted position's network prior, search visits and Q, and exact values.
pub async fn analyse(State(app): AppState, Extension(Client(client)): Who, body: Body) -> Reply {
    let a: AnalyseIn = parse(body)?;
    let rules = a.rules.as_ref().map_or(Ok(Rules::kalah64()), build_rules)?;
    let text = a.position.ok_or_else(|| {
        ApiError::bad("missing 'position' (notation, e.g. 4,4,4,4,4,4,0/4,4,4,4,4,4,0 s)")
    })?;
    let pos = Position::parse(&text, &rules)
        .map_err(|e| ApiError::bad(format!("position: {e}")).with_code(codes::BAD_POSITION))?;
    if pos.is_over() {
        return Err(ApiError::unprocessable(format!(
            "the game is over at {pos}: there is no move to analyse"
        ))
        .with_code(codes::GAME_OVER));
    }
    let limit = seconds("time_limit", a.time_limit, app.engines.limits.analyse)?;
    Ok(Json(
        analyse_position(&app, pos, limit, 0, None, client).await?,
    ))
}
