//! The web page at `GET /?fen=FEN`: a board in SVG, the verdict in Chinese and English, the
//! moves grouped by value (each a link to the position after it), the line of best play, and
//! the material set's statistics and book grade. Plain HTML: no JavaScript needed.

use super::{Failure, HTML, Response, Service, query_value};
use crate::display::piece_char;
use crate::material::Material;
use crate::probe::Results;
use crate::report::stats_report;
use crate::rules::{Color, Move, Notation, Position, Square};
use crate::theory::Catalogue;
use crate::value::{Outcome, Standing, Value};
use std::fmt::Write;

/// The position shown when the query names none: a horse against a lone general.
const DEFAULT_FEN: &str = "3k5/9/9/9/9/9/9/4N4/9/4K4 w - - 0 1";

/// What the query asks the page to show.
struct View {
    pos: Position,
    notation: Notation,
    flip: bool,
}

impl View {
    /// The page's address for `pos` with this view's notation and orientation.
    fn link(&self, pos: &Position, flip: bool) -> String {
        let notation = match self.notation {
            Notation::Chinese => "chinese",
            Notation::Wxf => "wxf",
            Notation::Iccs => "iccs",
        };
        format!(
            "/?fen={}&amp;notation={notation}{}",
            pos.fen().replace(' ', "_"),
            if flip { "&amp;flip=1" } else { "" }
        )
    }
}

/// The page for a query, or its error as a page.
pub(super) fn page(service: &Service, query: &str) -> Result<Response, Failure> {
    let notation = match query_value(query, "notation").as_deref() {
        Some("wxf") => Notation::Wxf,
        Some("iccs") => Notation::Iccs,
        _ => Notation::Chinese,
    };
    let flip = query_value(query, "flip").is_some_and(|v| v == "1");
    let fen = query_value(query, "fen").map_or(DEFAULT_FEN.to_string(), |f| f.replace('_', " "));
    let body = match Position::from_fen(&fen) {
        Ok(pos) => {
            let view = View {
                pos,
                notation,
                flip,
            };
            match body(service, &view) {
                Ok(b) => b,
                Err(Failure(status, message)) => return Ok(error_page(status, &fen, &message)),
            }
        }
        Err(e) => return Ok(error_page(400, &fen, &e.to_string())),
    };
    Ok(Response {
        status: 200,
        content_type: HTML,
        body: document(&fen, &body),
    })
}

fn error_page(status: u16, fen: &str, message: &str) -> Response {
    let body = format!(
        "<p class=\"error\" id=\"error\">{}</p>{}",
        escape(message),
        fen_form(fen, Notation::Chinese, false)
    );
    Response {
        status,
        content_type: HTML,
        body: document(fen, &body),
    }
}

/// The whole HTML document around `body`.
fn document(fen: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"zh\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>canju 殘局 · {}</title><style>{STYLE}</style></head>\
         <body><h1><a href=\"/\">canju 殘局</a></h1>{body}<script>{SCRIPT}</script></body></html>\n",
        escape(fen)
    )
}

/// Optional: click a piece, then a point, to play the move (follows the move's link).
const SCRIPT: &str = "let from=null;document.querySelectorAll('#board [data-square]').forEach(e=>\
e.addEventListener('click',()=>{const sq=e.dataset.square;if(from){const a=document.querySelector(\
'a.move[data-iccs=\"'+from+sq+'\"]');if(a){location=a.href;return;}}from=sq;\
document.querySelectorAll('#board .picked').forEach(p=>p.classList.remove('picked'));\
e.classList.add('picked');}));";

const STYLE: &str = "body{font-family:'Noto Sans CJK SC','WenQuanYi Zen Hei','Noto Sans',sans-serif;\
max-width:60em;margin:1em auto;padding:0 1em;color:#222}a{color:#1a4e8a}\
.cols{display:flex;flex-wrap:wrap;gap:2em}.win{color:#1b7a1b}.loss{color:#b22}.draw{color:#555}\
.error{color:#b22;font-weight:bold}table{border-collapse:collapse}td,th{padding:.1em .6em;text-align:right}\
ol.line li{display:inline;margin-right:.6em}#board [data-square]{cursor:pointer}\
#board .picked circle{stroke-width:4}input[name=fen]{width:32em}";

/// The page's content for a legal position.
fn body(service: &Service, view: &View) -> Result<String, Failure> {
    service.ensure(&view.pos)?;
    let tb = service.tablebase();
    let pos = &view.pos;
    let (class, verdict, moves, line) = match tb.results(pos)? {
        Results::Values(value, moves) => (
            value.wdl_name(),
            verdicts(pos, value),
            move_texts(&moves),
            tb.principal_variation(pos)?,
        ),
        Results::Outcomes(outcome, moves) => (
            outcome.wdl_name(),
            outcome_verdict(pos, outcome),
            move_texts(&moves),
            vec![],
        ),
    };
    let mut html = String::new();
    let side = if pos.turn() == Color::Red {
        "红方走 (red to move)"
    } else {
        "黑方走 (black to move)"
    };
    let _ = write!(
        html,
        "<div class=\"cols\"><div>{}<p id=\"turn\">{side} · <a id=\"flip\" href=\"{}\">翻转棋盘 flip board</a></p></div><div>\
         <p id=\"verdict\" class=\"{class}\"><b>{}</b><br>{}</p>",
        board_svg(pos, view.flip),
        view.link(pos, !view.flip),
        escape(&verdict[0]),
        escape(&verdict[1]),
    );
    html.push_str(&moves_html(view, &moves));
    html.push_str(&line_html(view, &line));
    html.push_str("</div></div>");
    html.push_str(&stats_html(service, Material::of_position(pos)));
    html.push_str(&fen_form(&pos.fen(), view.notation, view.flip));
    Ok(html)
}

/// The verdict in Chinese and English from a table without distances.
fn outcome_verdict(pos: &Position, o: Outcome) -> [String; 2] {
    let (me, other) = (pos.turn(), pos.turn().opponent());
    let name = |c: Color| if c == Color::Red { "红方" } else { "黑方" };
    let note = "no distance to mate: the tables hold win/draw/loss only (`canju gen --wdl-only`)";
    match o {
        Outcome::Win => [
            format!("{}胜 (表中无步数)", name(me)),
            format!("{me} wins; {note}"),
        ],
        Outcome::Loss => [
            format!("{}胜 (表中无步数)", name(other)),
            format!("{other} wins; {note}"),
        ],
        Outcome::WinByRule(r) => verdicts(pos, Value::WinByRule(r)),
        Outcome::LossByRule(r) => verdicts(pos, Value::LossByRule(r)),
        Outcome::Draw => verdicts(pos, Value::Draw),
    }
}

/// Each move with its class (`win`, `draw`, `loss`) and what it leaves, as text.
fn move_texts<S: Standing>(moves: &[(Move, S)]) -> Vec<(Move, &'static str, String)> {
    moves
        .iter()
        .map(|&(mv, v)| (mv, v.wdl_name(), v.to_string()))
        .collect()
}

/// The verdict of a value in Chinese and English.
fn verdicts(pos: &Position, v: Value) -> [String; 2] {
    [chinese_verdict(pos, v), english_verdict(pos, v)]
}

/// 红方胜 7回合 (13步) and its kin.
fn chinese_verdict(pos: &Position, v: Value) -> String {
    let name = |c: Color| if c == Color::Red { "红方" } else { "黑方" };
    let (me, other) = (name(pos.turn()), name(pos.turn().opponent()));
    match v {
        Value::Win(n) => format!("{me}胜 {}回合 ({n}步)", n.div_ceil(2)),
        Value::Loss(0) if pos.in_check() => format!("{me}被将死, {other}胜"),
        Value::Loss(0) => format!("{me}困毙, {other}胜"),
        Value::Loss(n) => format!("{other}胜 {}回合 ({n}步)", n.div_ceil(2)),
        Value::WinByRule(r) => format!("{me}胜: {other}只能{0}, {0}判负", r.chinese()),
        Value::LossByRule(r) => format!("{other}胜: {me}只能{0}, {0}判负", r.chinese()),
        Value::Draw => "和棋".to_string(),
    }
}

/// "red wins, mate in 13 plies" and its kin.
fn english_verdict(pos: &Position, v: Value) -> String {
    let (me, other) = (pos.turn(), pos.turn().opponent());
    match v {
        Value::Win(n) => format!("{me} wins, mate in {n} plies"),
        Value::Loss(0) if pos.in_check() => format!("{me} is checkmated: {other} wins"),
        Value::Loss(0) => format!("{me} has no legal move (stalemate, 困毙): {other} wins"),
        Value::Loss(n) => format!("{other} wins, mate in {n} plies"),
        Value::WinByRule(r) => format!(
            "{me} wins by {}: {other} can hold only by {} forever",
            r.words(),
            r.forbidden_play()
        ),
        Value::LossByRule(r) => format!(
            "{other} wins by {}: {me} can hold only by {} forever",
            r.words(),
            r.forbidden_play()
        ),
        Value::Draw => "draw".to_string(),
    }
}

/// The moves grouped win / draw / loss for the side to move, each a link; each move comes
/// with its class (`win`, `draw`, `loss`) and what it leaves, as text.
fn moves_html(view: &View, moves: &[(Move, &str, String)]) -> String {
    let mut html = String::from("<div id=\"moves\">");
    for (class, title) in [("win", "胜 win"), ("draw", "和 draw"), ("loss", "负 loss")] {
        let group: Vec<_> = moves.iter().filter(|(_, c, _)| *c == class).collect();
        if group.is_empty() {
            continue;
        }
        let _ = write!(
            html,
            "<h3 class=\"{class}\">{title}</h3><ul class=\"{class}\">"
        );
        for &(mv, _, text) in &group {
            let _ = write!(
                html,
                "<li><a class=\"move\" data-iccs=\"{}\" href=\"{}\">{}</a> <span class=\"value\">{}</span></li>",
                mv.iccs(),
                view.link(&view.pos.after(*mv), view.flip),
                escape(&view.pos.format_move(*mv, view.notation)),
                escape(text)
            );
        }
        html.push_str("</ul>");
    }
    if moves.is_empty() {
        html.push_str("<p>no legal move</p>");
    }
    html.push_str("</div>");
    html
}

/// The line of best play in the chosen notation.
fn line_html(view: &View, line: &[Move]) -> String {
    if line.is_empty() {
        return String::new();
    }
    let mut html =
        String::from("<h3>最佳着法 line of best play</h3><ol class=\"line\" id=\"line\">");
    let mut p = view.pos.clone();
    for &mv in line {
        let _ = write!(
            html,
            "<li>{}</li>",
            escape(&p.format_move(mv, view.notation))
        );
        p.make(mv);
    }
    let side = |c: Color| {
        if c == Color::Red {
            "红方 red"
        } else {
            "黑方 black"
        }
    };
    let end = if crate::probe::repetition_start(&view.pos, line).is_some() {
        "局面重复: 长将方须变着, 否则判负 (the position repeats: the side checking perpetually \
         must deviate, and loses)"
            .to_string()
    } else if p.in_check() {
        format!("{} 被将死 (checkmated)", side(p.turn()))
    } else {
        format!("{} 困毙 (stalemate, a loss)", side(p.turn()))
    };
    let _ = write!(html, "</ol><p id=\"line-end\">{}</p>", escape(&end));
    html
}

/// The set's statistics per side to move and its book grade, where the catalogue has one.
fn stats_html(service: &Service, m: Material) -> String {
    let Ok(stats) = stats_report(service.tablebase(), m) else {
        return String::new();
    };
    let mut html = format!(
        "<h3 id=\"stats\">{} ({})</h3><table><tr><th></th><th>positions</th><th>win</th><th>draw</th><th>loss</th><th>longest win</th></tr>",
        escape(&stats.material_chinese),
        escape(&stats.material)
    );
    for (who, s) in [
        ("红方走 red to move", &stats.red),
        ("黑方走 black to move", &stats.black),
    ] {
        let pct = |n: u64| 100.0 * n as f64 / s.positions.max(1) as f64;
        let longest = if stats.distances {
            format!("{} plies", s.longest_win)
        } else {
            "— (no distances stored)".to_string()
        };
        let _ = write!(
            html,
            "<tr><th>{who}</th><td>{}</td><td>{:.1}%</td><td>{:.1}%</td><td>{:.1}%</td><td>{longest}</td></tr>",
            s.positions,
            pct(s.win),
            pct(s.draw),
            pct(s.loss),
        );
    }
    html.push_str("</table>");
    let catalogue = Catalogue::builtin();
    if let Some(e) = catalogue.find(m) {
        let _ = write!(
            html,
            "<p id=\"book\">{}: book grade {} ({})</p>",
            escape(&e.chinese[0]),
            escape(&e.grade),
            escape(&e.source)
        );
    }
    html
}

/// The FEN box with the notation and orientation choices.
fn fen_form(fen: &str, notation: Notation, flip: bool) -> String {
    let option = |value: &str, label: &str, on: bool| {
        format!(
            "<option value=\"{value}\"{}>{label}</option>",
            if on { " selected" } else { "" }
        )
    };
    format!(
        "<form method=\"get\" action=\"/\"><p><input name=\"fen\" value=\"{}\"> \
         <select name=\"notation\">{}{}{}</select> \
         <label><input type=\"checkbox\" name=\"flip\" value=\"1\"{}> flip</label> \
         <button type=\"submit\">查询 look up</button></p></form>",
        escape(fen),
        option("chinese", "中文", notation == Notation::Chinese),
        option("wxf", "WXF", notation == Notation::Wxf),
        option("iccs", "ICCS", notation == Notation::Iccs),
        if flip { " checked" } else { "" }
    )
}

/// Cell size and margin of the board drawing, in SVG units.
const CELL: i32 = 50;
const MARGIN: i32 = 40;

/// Where a point is drawn.
fn point_xy(file: i32, rank: i32, flip: bool) -> (i32, i32) {
    let (col, row) = if flip {
        (8 - file, rank)
    } else {
        (file, 9 - rank)
    };
    (MARGIN + col * CELL, MARGIN + row * CELL)
}

/// The board in SVG: lines, river, palaces, pieces (red in red, black in black).
fn board_svg(pos: &Position, flip: bool) -> String {
    let (w, h) = (2 * MARGIN + 8 * CELL, 2 * MARGIN + 9 * CELL);
    let mut svg = format!(
        "<svg id=\"board\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"{}\">\
         <rect width=\"{w}\" height=\"{h}\" fill=\"#e8c887\"/><g stroke=\"#5a3a1a\" stroke-width=\"1.5\">",
        escape(&pos.fen())
    );
    let line = |svg: &mut String, a: (i32, i32), b: (i32, i32)| {
        let _ = write!(
            svg,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
            a.0, a.1, b.0, b.1
        );
    };
    for rank in 0..10 {
        line(&mut svg, point_xy(0, rank, flip), point_xy(8, rank, flip));
    }
    for file in 0..9 {
        if file == 0 || file == 8 {
            line(&mut svg, point_xy(file, 0, flip), point_xy(file, 9, flip));
        } else {
            line(&mut svg, point_xy(file, 0, flip), point_xy(file, 4, flip));
            line(&mut svg, point_xy(file, 5, flip), point_xy(file, 9, flip));
        }
    }
    for (r0, r2) in [(0, 2), (7, 9)] {
        line(&mut svg, point_xy(3, r0, flip), point_xy(5, r2, flip));
        line(&mut svg, point_xy(5, r0, flip), point_xy(3, r2, flip));
    }
    svg.push_str("</g>");
    let river_y = MARGIN + 4 * CELL + CELL / 2 + 8;
    let _ = write!(
        svg,
        "<text x=\"{}\" y=\"{river_y}\" font-size=\"24\" text-anchor=\"middle\" fill=\"#5a3a1a\">楚 河</text>\
         <text x=\"{}\" y=\"{river_y}\" font-size=\"24\" text-anchor=\"middle\" fill=\"#5a3a1a\">汉 界</text>",
        MARGIN + 2 * CELL,
        MARGIN + 6 * CELL
    );
    for index in 0..90usize {
        let Some(sq) = Square::from_index(index) else {
            continue;
        };
        let Some(piece) = pos.piece_at(sq) else {
            continue;
        };
        let (x, y) = point_xy(i32::from(sq.file()), i32::from(sq.rank()), flip);
        let colour = if piece.color == Color::Red {
            "#c01818"
        } else {
            "#111"
        };
        let _ = write!(
            svg,
            "<g class=\"piece {}\" data-square=\"{sq}\"><circle cx=\"{x}\" cy=\"{y}\" r=\"21\" fill=\"#fbe9c6\" stroke=\"{colour}\" stroke-width=\"2\"/>\
             <text x=\"{x}\" y=\"{}\" font-size=\"26\" text-anchor=\"middle\" fill=\"{colour}\">{}</text></g>",
            piece.color.name(),
            y + 9,
            piece_char(piece)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// `s` with the characters HTML gives meaning to escaped.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
