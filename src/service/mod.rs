//! The HTTP tablebase service behind `canju serve`, without the sockets: a request's method
//! and URL in, a status, content type and body out. The binary feeds it from tiny_http; the
//! tests call it directly too.
//!
//! - `GET /xiangqi?fen=FEN`: [`crate::report::LookupReport`] (lichess's shape: a move carries
//!   the value of the position after it).
//! - `GET /xiangqi/mainline?fen=FEN`: [`crate::report::MainlineReport`].
//! - `GET /xiangqi/stats/MATERIAL` (ASCII or Chinese, URL-encoded): what `canju stats --json`
//!   prints.
//! - `GET /?fen=FEN[&notation=chinese|wxf|iccs][&flip=1]`: the web page (`page`).
//!
//! In a FEN, underscores stand for spaces. Errors are JSON `{"error", "status"}`: 400 for a bad
//! FEN, illegal position or unknown material, 404 for a missing table (with the `canju gen`
//! command that makes it) or an unknown path, 405 for a method other than GET or HEAD, 500
//! for a damaged table (naming the file) or a failed generation.

mod page;

use crate::generate::{GenOptions, generate_all};
use crate::material::Material;
use crate::probe::{ProbeError, Tablebase};
use crate::report::{lookup_report, mainline_report, stats_report};
use crate::rules::Position;
use std::sync::Mutex;

/// An answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// HTTP status.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: String,
}

const JSON: &str = "application/json; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";

impl Response {
    fn json(value: &impl serde::Serialize) -> Response {
        match serde_json::to_string_pretty(value) {
            Ok(body) => Response {
                status: 200,
                content_type: JSON,
                body,
            },
            Err(e) => Response::error(500, &format!("cannot write the answer: {e}")),
        }
    }

    /// A JSON error with its message.
    pub fn error(status: u16, message: &str) -> Response {
        Response {
            status,
            content_type: JSON,
            body: serde_json::json!({"error": message, "status": status}).to_string(),
        }
    }
}

/// Why a request failed: its status and message.
struct Failure(u16, String);

impl From<ProbeError> for Failure {
    fn from(e: ProbeError) -> Failure {
        let status = match e {
            // A line needs distances the tables do not hold (`--wdl-only`).
            _ if e.lacks_distances() => 422,
            ProbeError::MissingTable { .. } => 404,
            ProbeError::Position(_) => 400,
            ProbeError::Table(_) | ProbeError::NotInTable { .. } => 500,
        };
        Failure(status, e.to_string())
    }
}

/// The service: a tablebase, and how large a missing set it may generate.
pub struct Service {
    tb: Tablebase,
    gen_max_men: u32,
    generating: Mutex<()>,
}

impl Service {
    /// Answers from `tb`, generating missing sets of at most `gen_max_men` men (0: never).
    pub fn new(tb: Tablebase, gen_max_men: u32) -> Service {
        Service {
            tb,
            gen_max_men,
            generating: Mutex::new(()),
        }
    }

    /// The tablebase it answers from.
    pub fn tablebase(&self) -> &Tablebase {
        &self.tb
    }

    /// Answers one request.
    pub fn handle(&self, method: &str, url: &str) -> Response {
        if method != "GET" && method != "HEAD" {
            return Response::error(405, &format!("{method}: only GET is served"));
        }
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        let answer = match path {
            "/" => page::page(self, query),
            "/xiangqi" => self.position(query).and_then(|pos| {
                self.ensure(&pos)?;
                Ok(Response::json(&lookup_report(&self.tb, &pos)?))
            }),
            "/xiangqi/mainline" => self.position(query).and_then(|pos| {
                self.ensure(&pos)?;
                Ok(Response::json(&mainline_report(&self.tb, &pos)?))
            }),
            _ => match path.strip_prefix("/xiangqi/stats/") {
                Some(name) => self.stats(name),
                None => Err(Failure(404, format!("{path}: no such page"))),
            },
        };
        answer.unwrap_or_else(|Failure(status, message)| Response::error(status, &message))
    }

    /// The position a query's `fen` names.
    fn position(&self, query: &str) -> Result<Position, Failure> {
        let fen = query_value(query, "fen")
            .ok_or_else(|| Failure(400, "give the position as ?fen=FEN".to_string()))?;
        Position::from_fen(&fen.replace('_', " ")).map_err(|e| Failure(400, e.to_string()))
    }

    /// Generates the table of `pos`'s set if it is missing and small enough.
    fn ensure(&self, pos: &Position) -> Result<(), Failure> {
        self.ensure_set(Material::of_position(pos))
    }

    fn ensure_set(&self, m: Material) -> Result<(), Failure> {
        if self.tb.has(m) || m.men() > self.gen_max_men {
            return Ok(()); // probing says what is missing
        }
        let _one_at_a_time = self.generating.lock().unwrap_or_else(|e| e.into_inner());
        if self.tb.has(m) {
            return Ok(());
        }
        generate_all(&self.tb, &[m], &GenOptions::default())
            .map(|_| ())
            .map_err(|e| Failure(500, format!("generating {}: {e}", m.name())))
    }

    /// `GET /xiangqi/stats/MATERIAL`.
    fn stats(&self, name: &str) -> Result<Response, Failure> {
        let name = percent_encoding::percent_decode_str(name)
            .decode_utf8()
            .map_err(|_| Failure(400, "the material is not UTF-8".to_string()))?;
        let m = Material::parse(&name).map_err(|e| Failure(400, e.to_string()))?;
        self.ensure_set(m)?;
        Ok(Response::json(&stats_report(&self.tb, m)?))
    }
}

/// The value of `key` in a query string, decoded.
fn query_value(query: &str, key: &str) -> Option<String> {
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.into_owned())
}
