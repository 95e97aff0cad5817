//! The post-mortem of one call as one self-contained HTML page: a swimlane
//! timeline (SVG), the per-agent table and every finding with its source
//! line.
//!
//! The page loads nothing: no network, no external script, style or font.
//! Its Content-Security-Policy says so (`default-src 'none'`) and admits
//! only its own two inline scripts, by hash. Every text that comes from a
//! log (names, spoken lines, messages, source lines) passes through
//! [`escape::html`], in element text and in attribute values alike.
//!
//! [`Page`] is the view the renderer draws; `callint report` builds it from
//! the logs (see `src/postmortem.rs`) and prints its terminal summary from
//! the same view.

use std::fmt::Write;

use crate::core::diagnostic::Severity;
use crate::core::escape::html as esc;
use crate::model::Ms;

/// Everything the page shows. Times are milliseconds since the call start,
/// except `started` (epoch milliseconds).
#[derive(Clone, Debug, Default)]
pub struct Page {
    /// The call's title (from `create_call`), else its id.
    pub title: Option<String>,
    pub call_id: Option<String>,
    /// Epoch milliseconds of the call start, when known.
    pub started: Option<Ms>,
    pub duration: Ms,
    /// The call language and its changes: `(since, lang)`.
    pub langs: Vec<(Ms, String)>,
    pub files: Vec<FileInfo>,
    pub lanes: Vec<Lane>,
    pub marks: Vec<Mark>,
    pub findings: Vec<FindingRow>,
    /// One row per agent lane, in lane order.
    pub agents: Vec<AgentRow>,
}

/// One log given to the report.
#[derive(Clone, Debug)]
pub struct FileInfo {
    pub path: String,
    /// The recording agent, when the log names it.
    pub agent: Option<String>,
    pub records: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneKind {
    Human,
    Voicebot,
    Agent,
}

/// One participant's lane.
#[derive(Clone, Debug)]
pub struct Lane {
    pub name: String,
    pub kind: LaneKind,
    /// `owner` or `participant`, for agents whose role is known.
    pub role: Option<&'static str>,
    /// From join to leave, where the logs tell.
    pub present: Vec<(Ms, Ms)>,
}

impl Lane {
    /// What the participant is: `human`, `voicebot`, `owner`, `participant`
    /// or `agent`.
    pub fn what(&self) -> &'static str {
        match self.kind {
            LaneKind::Human => "human",
            LaneKind::Voicebot => "voicebot",
            LaneKind::Agent => self.role.unwrap_or("agent"),
        }
    }
}

/// Every name and text of a page cut to a bounded window
/// ([`crate::core::escape::window`]), and each finding's source line to the part
/// around what it points at: a name or line of megabytes costs the summary
/// and the page a few hundred characters.
pub fn bound(p: &mut Page) {
    use crate::core::escape::{window, MAX_NAME, MAX_TEXT};
    for name in [&mut p.title, &mut p.call_id].into_iter().flatten() {
        window(name, MAX_TEXT);
    }
    for l in &mut p.lanes {
        window(&mut l.name, MAX_NAME);
    }
    for a in &mut p.agents {
        window(&mut a.name, MAX_NAME);
    }
    for f in &mut p.files {
        if let Some(a) = &mut f.agent {
            window(a, MAX_TEXT);
        }
    }
    for m in &mut p.marks {
        window(&mut m.text, MAX_TEXT);
    }
    for f in &mut p.findings {
        if let Some(a) = &mut f.agent {
            window(a, MAX_NAME);
        }
        // The source line: at most MAX_TEXT characters each side of the
        // place, the place itself cut in its middle.
        let (a, b) = f.hit;
        if f.source.len() > 4 * MAX_TEXT
            && a <= b
            && f.source.is_char_boundary(a)
            && f.source.is_char_boundary(b)
        {
            let back = |at: usize, n: usize| {
                f.source[..at]
                    .char_indices()
                    .rev()
                    .nth(n)
                    .map_or(0, |(i, _)| i)
            };
            let fwd = |at: usize, n: usize| {
                f.source[at..]
                    .char_indices()
                    .nth(n)
                    .map_or(f.source.len(), |(i, _)| at + i)
            };
            let from = back(a, MAX_TEXT);
            let to = fwd(b, MAX_TEXT);
            let mut hit = f.source[a..b].to_string();
            window(&mut hit, MAX_TEXT);
            let before = &f.source[from..a];
            let cut = format!("{before}{hit}{}", &f.source[b..to]);
            f.hit = (before.len(), before.len() + hit.len());
            f.source = cut;
        }
    }
}

/// One spoken line on the timeline.
#[derive(Clone, Debug)]
pub struct Mark {
    pub lane: usize,
    pub at: Ms,
    pub text: String,
    /// Lanes the line addressed.
    pub addressed: Vec<usize>,
    /// A `say` the server dropped or revised: never heard in the room.
    pub dropped: bool,
    /// Indices into `Page::findings` of the findings on this line.
    pub findings: Vec<usize>,
}

/// One finding, attached to its file and line.
#[derive(Clone, Debug)]
pub struct FindingRow {
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    pub help: Option<String>,
    /// The agent at fault (the finding's agent, else the log's recorder).
    pub agent: Option<String>,
    /// Its lane, when the agent has one.
    pub lane: Option<usize>,
    pub file: String,
    pub line: usize,
    pub column: usize,
    /// When the record was written, relative to the call start.
    pub at: Option<Ms>,
    /// The source line, as in the file (lossy UTF-8).
    pub source: String,
    /// Byte range of `source` the finding points at (on char boundaries).
    pub hit: (usize, usize),
    /// Index into `Page::marks` of the spoken line it is about.
    pub mark: Option<usize>,
}

/// The numbers of one agent.
#[derive(Clone, Debug, Default)]
pub struct AgentRow {
    pub name: String,
    pub role: Option<&'static str>,
    /// Its own logs among the files given.
    pub logs: Vec<String>,
    /// Lines it said that the room heard.
    pub says: usize,
    pub words: usize,
    /// Times the human addressed it.
    pub addressed: usize,
    /// Time from each such line to its first `say`.
    pub acks: Vec<Ms>,
    /// Times it said nothing before the human spoke again.
    pub unanswered: usize,
    /// Says out of turn (over Delta, for another agent, answering a
    /// question meant for the human, answering an agent); known only from
    /// the agent's own log.
    pub out_of_turn: Option<usize>,
    /// Findings about it, per rule, most first.
    pub by_rule: Vec<(&'static str, usize)>,
}

impl AgentRow {
    pub fn findings(&self) -> usize {
        self.by_rule.iter().map(|r| r.1).sum()
    }
    /// Median time to acknowledge (the mean of the middle two for an even
    /// count).
    pub fn median_ack(&self) -> Option<Ms> {
        let mut v = self.acks.clone();
        v.sort_unstable();
        let n = v.len();
        match n {
            0 => None,
            _ if n % 2 == 1 => Some(v[n / 2]),
            _ => Some((v[n / 2 - 1] + v[n / 2]) / 2),
        }
    }
    pub fn worst_ack(&self) -> Option<Ms> {
        self.acks.iter().copied().max()
    }
}

/// `mm:ss` (or `h:mm:ss`) of a time since the call start.
pub fn clock(ms: Ms) -> String {
    let s = ms.max(0) / 1000;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
    } else {
        format!("{:02}:{:02}", s / 60, s % 60)
    }
}

/// Seconds with two decimals: `1.45 s`.
pub fn seconds(ms: Ms) -> String {
    let cs = (ms.max(0) + 5) / 10;
    format!("{}.{:02} s", cs / 100, cs % 100)
}

/// `2026-10-10 09:59:52 UTC` of an epoch time; the time of day alone for a
/// time without a date (a transcript's `[09:59:52]` counts from the epoch).
pub fn date_time(ms: Ms) -> String {
    let days = ms.div_euclid(86_400_000);
    let s = ms.div_euclid(1000).rem_euclid(86_400);
    let time = format!("{:02}:{:02}:{:02} UTC", s / 3600, (s / 60) % 60, s % 60);
    if days == 0 {
        return time;
    }
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02} {time}")
}

use crate::input::ts::civil_from_days;

// ---------------------------------------------------------------------------
// Drawing.
// ---------------------------------------------------------------------------

const GUTTER: f64 = 176.0;
const RIGHT: f64 = 36.0;
const AXIS: f64 = 36.0;
const LANE_H: f64 = 60.0;
/// Width the plot aims for; a long call gets at least `MIN_PX_PER_S`, up
/// to `MAX_PLOT_W` (a call of hours scrolls; a broken timestamp years off
/// squeezes the plot instead of growing it without end).
const PLOT_W: f64 = 1080.0;
const MIN_PX_PER_S: f64 = 1.2;
const MAX_PLOT_W: f64 = 30_000.0;

const HUMAN: &str = "#1f4e8c";
const VOICEBOT: &str = "#7b3fa0";
const AGENTS: &[&str] = &[
    "#0f7f7a", "#c46a00", "#3a7d2c", "#8a5a44", "#b0306a", "#3c5fa8", "#6b6b00", "#00739e",
];
const RED: &str = "#d01c1c";

/// The colour of a lane.
pub fn lane_color(lanes: &[Lane], k: usize) -> &'static str {
    match lanes[k].kind {
        LaneKind::Human => HUMAN,
        LaneKind::Voicebot => VOICEBOT,
        LaneKind::Agent => {
            let n = lanes[..k]
                .iter()
                .filter(|l| l.kind == LaneKind::Agent)
                .count();
            AGENTS[n % AGENTS.len()]
        }
    }
}

/// The page, whole.
pub fn render(p: &Page) -> String {
    let mut o = String::with_capacity(64 * 1024);
    let title = p
        .title
        .as_deref()
        .or(p.call_id.as_deref())
        .unwrap_or("a call");
    let csp = format!(
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src '{}' '{}'",
        script_hash(GUARD),
        script_hash(SCRIPT)
    );
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Post-mortem: {}</title>\n<script>{GUARD}</script>\n<style>{CSS}</style>\n</head>\n<body>\n",
        esc(title)
    );
    header(p, title, &mut o);
    legend(p, &mut o);
    o.push_str("<section id=\"timeline-section\"><h2>Timeline</h2>\n<div class=\"scroll\">");
    let g = geometry(p);
    let flags = flags(p, &g);
    svg(p, &g, &flags, &mut o);
    o.push_str("</div></section>\n");
    agents_table(p, &mut o);
    findings(p, &targets(p, &flags), &mut o);
    let _ = write!(
        o,
        "<footer>Written by callint {}. This page loads nothing from the network; \
         every text from the logs is shown as text.</footer>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
    o
}

fn header(p: &Page, title: &str, o: &mut String) {
    let _ = write!(
        o,
        "<header><h1>Post-mortem: <span class=\"call-title\">{}</span></h1>\n<div class=\"stats\">",
        esc(title)
    );
    let heard = p.marks.iter().filter(|m| !m.dropped).count();
    let errors = p
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let stat = |o: &mut String, id: &str, label: &str, value: &str, class: &str| {
        let _ = write!(
            o,
            "<div class=\"stat {class}\"><div class=\"v\" id=\"{id}\">{value}</div><div class=\"k\">{label}</div></div>"
        );
    };
    stat(o, "duration", "duration", &clock(p.duration), "");
    stat(o, "language", "language", &esc(&lang_line(p)), "");
    stat(
        o,
        "participant-count",
        "participants",
        &p.lanes.len().to_string(),
        "",
    );
    stat(o, "line-count", "lines heard", &heard.to_string(), "");
    let label = match errors {
        0 => "findings".to_string(),
        1 => "findings, 1 error".to_string(),
        n => format!("findings, {n} errors"),
    };
    stat(
        o,
        "finding-count",
        &label,
        &p.findings.len().to_string(),
        if p.findings.is_empty() { "" } else { "bad" },
    );
    o.push_str("</div>\n<dl class=\"facts\">");
    if p.call_id.is_some() || p.started.is_some() {
        o.push_str("<dt>Call</dt><dd>");
        if let Some(id) = &p.call_id {
            let _ = write!(o, "<code>{}</code> ", esc(id));
        }
        if let Some(s) = p.started {
            let _ = write!(o, "started {}", date_time(s));
        }
        o.push_str("</dd>");
    }
    o.push_str("<dt>Participants</dt><dd id=\"participants\">");
    for (k, l) in p.lanes.iter().enumerate() {
        if k > 0 {
            o.push_str(", ");
        }
        let _ = write!(
            o,
            "<span class=\"who\"><span class=\"dot\" style=\"background:{}\"></span>{} <small>({})</small></span>",
            lane_color(&p.lanes, k),
            esc(&l.name),
            l.what()
        );
    }
    o.push_str("</dd><dt>Logs</dt><dd>");
    for (k, f) in p.files.iter().enumerate() {
        if k > 0 {
            o.push_str(", ");
        }
        let _ = write!(o, "<code>{}</code>", esc(&f.path));
        if let Some(a) = &f.agent {
            let _ = write!(o, " <small>({})</small>", esc(a));
        }
    }
    o.push_str("</dd></dl></header>\n");
}

/// `en`, or `en, de from 04:12`.
pub fn lang_line(p: &Page) -> String {
    if p.langs.is_empty() {
        return "unknown".to_string();
    }
    p.langs
        .iter()
        .enumerate()
        .map(|(k, (at, l))| {
            if k == 0 {
                l.clone()
            } else {
                format!("{l} from {}", clock(*at))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn legend(p: &Page, o: &mut String) {
    o.push_str("<ul class=\"legend\" id=\"legend\">");
    for (k, l) in p.lanes.iter().enumerate() {
        let _ = write!(
            o,
            "<li><svg width=\"14\" height=\"14\" aria-hidden=\"true\"><circle cx=\"7\" cy=\"7\" r=\"6\" fill=\"{}\"/></svg>{}</li>",
            lane_color(&p.lanes, k),
            esc(&l.name)
        );
    }
    let _ = writeln!(
        o,
        "<li><svg width=\"14\" height=\"14\" aria-hidden=\"true\"><circle cx=\"7\" cy=\"7\" r=\"6\" fill=\"{RED}\" stroke=\"#6d0000\" stroke-width=\"1.5\"/></svg>line with a finding</li>\
         <li><svg width=\"14\" height=\"14\" aria-hidden=\"true\"><path d=\"M7 1 L13 7 L7 13 L1 7 Z\" fill=\"{RED}\"/></svg>finding on a record that is not a spoken line (board, tool, join, event)</li>\
         <li><svg width=\"14\" height=\"14\" aria-hidden=\"true\"><circle cx=\"7\" cy=\"7\" r=\"5\" fill=\"#fff\" stroke=\"#555\" stroke-width=\"1.5\" stroke-dasharray=\"2 2\"/></svg>say dropped by the server (never heard)</li>\
         <li><svg width=\"26\" height=\"14\" aria-hidden=\"true\"><path d=\"M2 7 L20 7\" stroke=\"#555\" stroke-width=\"1.5\"/><path d=\"M18 3 L25 7 L18 11 Z\" fill=\"#555\"/></svg>addressed to</li>\
         <li><svg width=\"26\" height=\"14\" aria-hidden=\"true\"><rect x=\"1\" y=\"3\" width=\"24\" height=\"8\" rx=\"4\" fill=\"#888\" fill-opacity=\".2\"/></svg>in the call (join to leave)</li>\
         <li class=\"hint\">Hover a mark for its line and findings; click a red one to jump to its finding.</li></ul>"
    );
}

struct Geo {
    px_per_ms: f64,
    width: f64,
    height: f64,
}

impl Geo {
    fn x(&self, at: Ms) -> f64 {
        GUTTER + at.max(0) as f64 * self.px_per_ms
    }
    fn y(&self, lane: usize) -> f64 {
        AXIS + lane as f64 * LANE_H + LANE_H / 2.0
    }
}

fn geometry(p: &Page) -> Geo {
    let dur = p.duration.max(1000) as f64;
    let px_per_ms = (PLOT_W / dur)
        .max(MIN_PX_PER_S / 1000.0)
        .min(MAX_PLOT_W / dur);
    let width = GUTTER + dur * px_per_ms + RIGHT;
    let height = AXIS + p.lanes.len().max(1) as f64 * LANE_H + 8.0;
    Geo {
        px_per_ms,
        width,
        height,
    }
}

/// Tick step: the first that leaves at least 72 px between labels (so a
/// plot of at most `MAX_PLOT_W` has a few hundred ticks at most).
fn tick_step(px_per_ms: f64) -> Ms {
    const STEPS: &[Ms] = &[
        1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000,
        1_800_000, 3_600_000,
    ];
    let fits = |s: Ms| s as f64 * px_per_ms >= 72.0;
    if let Some(s) = STEPS.iter().copied().find(|&s| fits(s)) {
        return s;
    }
    // Beyond: 1, 2, 5, 10, 20, 50, ... hours.
    let mut hours: Ms = 3_600_000;
    loop {
        for m in [1, 2, 5] {
            let s = hours.saturating_mul(m);
            if fits(s) || s == Ms::MAX {
                return s;
            }
        }
        hours = hours.saturating_mul(10);
    }
}

fn svg(p: &Page, g: &Geo, flags: &[Flag], o: &mut String) {
    let _ = writeln!(
        o,
        "<svg id=\"timeline\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" role=\"img\" aria-label=\"Timeline of the call, one lane per participant\">",
        w = g.width,
        h = g.height
    );
    // One arrow head per lane colour.
    o.push_str("<defs>");
    for k in 0..p.lanes.len() {
        let _ = write!(
            o,
            "<marker id=\"arrow-{k}\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0 0 L8 4 L0 8 Z\" fill=\"{}\"/></marker>",
            lane_color(&p.lanes, k)
        );
    }
    o.push_str("</defs>\n");

    // Lanes: a band each, the participant's name in the gutter.
    for (k, l) in p.lanes.iter().enumerate() {
        let top = AXIS + k as f64 * LANE_H;
        let color = lane_color(&p.lanes, k);
        let _ = write!(
            o,
            "<g class=\"lane lane-{}\" id=\"lane-{k}\" data-lane=\"{}\" data-kind=\"{}\">\
             <rect class=\"band{}\" x=\"0\" y=\"{top:.1}\" width=\"{:.0}\" height=\"{LANE_H}\"/>\
             <line class=\"lane-line\" x1=\"{GUTTER}\" x2=\"{:.1}\" y1=\"{cy:.1}\" y2=\"{cy:.1}\" stroke=\"{color}\"/>",
            kind_name(l.kind),
            esc(&l.name),
            l.what(),
            if k % 2 == 1 { " odd" } else { "" },
            g.width,
            g.width - RIGHT + 10.0,
            cy = g.y(k),
        );
        for (a, b) in &l.present {
            let (x1, x2) = (g.x(*a), g.x(*b).max(g.x(*a) + 2.0));
            let _ = write!(
                o,
                "<rect class=\"presence\" x=\"{x1:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"18\" rx=\"9\" fill=\"{color}\"><title>{} in the call {}–{}</title></rect>",
                g.y(k) - 9.0,
                x2 - x1,
                esc(&l.name),
                clock(*a),
                clock(*b)
            );
        }
        let n = p.findings.iter().filter(|f| f.lane == Some(k)).count();
        let _ = write!(
            o,
            "<circle cx=\"16\" cy=\"{:.1}\" r=\"6\" fill=\"{color}\"/>\
             <text class=\"lane-name\" x=\"28\" y=\"{:.1}\">{}</text>\
             <text class=\"lane-role\" x=\"28\" y=\"{:.1}\">{}",
            g.y(k) - 5.0,
            g.y(k) - 1.0,
            esc(&cut(&l.name, 18)),
            g.y(k) + 15.0,
            l.what()
        );
        if n > 0 {
            let _ = write!(
                o,
                " · <tspan class=\"lane-findings\">{n} finding{}</tspan>",
                if n == 1 { "" } else { "s" }
            );
        }
        o.push_str("</text></g>\n");
    }

    // The time axis: mm:ss from the call start, a grid line per tick.
    let step = tick_step(g.px_per_ms);
    o.push_str("<g class=\"axis\">");
    let mut t = 0;
    while t <= p.duration {
        let x = g.x(t);
        let _ = write!(
            o,
            "<line class=\"grid\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/><text class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\">{}</text>",
            AXIS - 6.0,
            g.height - 8.0,
            AXIS - 12.0,
            clock(t)
        );
        match t.checked_add(step) {
            Some(n) => t = n,
            None => break,
        }
    }
    o.push_str("</g>\n");

    // Who addressed whom: a curve from the line to each addressed lane.
    o.push_str("<g class=\"links\">");
    for m in &p.marks {
        for &to in &m.addressed {
            if to == m.lane || to >= p.lanes.len() {
                continue;
            }
            let x = g.x(m.at);
            let (y1, y2) = (g.y(m.lane), g.y(to));
            let dir = if y2 > y1 { 1.0 } else { -1.0 };
            let (a, b) = (y1 + dir * 8.0, y2 - dir * 9.0);
            let _ = write!(
                o,
                "<path class=\"link\" d=\"M{x:.1} {a:.1} C{:.1} {:.1} {:.1} {:.1} {:.1} {b:.1}\" stroke=\"{}\" marker-end=\"url(#arrow-{})\"/>",
                x + 16.0,
                a + (b - a) * 0.3,
                x + 16.0,
                a + (b - a) * 0.75,
                x + 4.0,
                lane_color(&p.lanes, m.lane),
                m.lane
            );
        }
    }
    o.push_str("</g>\n");

    // Spoken lines.
    o.push_str("<g class=\"marks\">");
    for (k, m) in p.marks.iter().enumerate() {
        let l = &p.lanes[m.lane];
        let mut classes = String::from("mark");
        if !m.findings.is_empty() {
            classes.push_str(" has-finding");
        }
        if m.dropped {
            classes.push_str(" dropped");
        }
        let rules: Vec<&str> = m.findings.iter().map(|&f| p.findings[f].rule).collect();
        let (fill, stroke) = if !m.findings.is_empty() {
            (RED, "#6d0000")
        } else if m.dropped {
            ("#ffffff", lane_color(&p.lanes, m.lane))
        } else {
            (lane_color(&p.lanes, m.lane), "#ffffff")
        };
        let _ = write!(
            o,
            "<g class=\"{classes}\" id=\"m{k}\" data-lane=\"{}\" data-t=\"{}\" data-rules=\"{}\" tabindex=\"0\"><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\"/><title>",
            esc(&l.name),
            m.at,
            esc(&rules.join(" ")),
            g.x(m.at),
            g.y(m.lane),
            if m.findings.is_empty() { "6.5" } else { "7.5" },
        );
        let to: Vec<&str> = m
            .addressed
            .iter()
            .filter_map(|&a| p.lanes.get(a).map(|l| l.name.as_str()))
            .collect();
        let _ = write!(o, "{} {}", clock(m.at), esc(&l.name));
        if !to.is_empty() {
            let _ = write!(o, " → {}", esc(&to.join(", ")));
        }
        if m.dropped {
            o.push_str(" (dropped by the server, never heard)");
        }
        let _ = write!(o, "\n“{}”", esc(&m.text));
        for &f in &m.findings {
            let f = &p.findings[f];
            let _ = write!(o, "\n⚠ {}: {}", esc(f.rule), esc(&f.message));
        }
        o.push_str("</title></g>");
    }
    o.push_str("</g>\n");

    // Findings on records that are not spoken lines: a red diamond below
    // the lane, one per group of findings too close to tell apart.
    o.push_str("<g class=\"flags\">");
    for fl in flags {
        let lane = &p.lanes[fl.lane];
        let (x, y) = (fl.x, g.y(fl.lane) + 17.0);
        let rules: Vec<&str> = fl.findings.iter().map(|&f| p.findings[f].rule).collect();
        let _ = write!(
            o,
            "<g class=\"flag\" id=\"{}\" data-rule=\"{}\" data-lane=\"{}\" tabindex=\"0\"><path d=\"M{x:.1} {:.1} L{:.1} {y:.1} L{x:.1} {:.1} L{:.1} {y:.1} Z\" fill=\"{RED}\"/>",
            fl.id,
            esc(&rules.join(" ")),
            esc(&lane.name),
            y - 6.0,
            x + 6.0,
            y + 6.0,
            x - 6.0,
        );
        if fl.findings.len() > 1 {
            let _ = write!(
                o,
                "<text class=\"flag-count\" x=\"{:.1}\" y=\"{:.1}\">×{}</text>",
                x + 8.0,
                y + 4.0,
                fl.findings.len()
            );
        }
        o.push_str("<title>");
        for (n, &k) in fl.findings.iter().enumerate() {
            let f = &p.findings[k];
            if n > 0 {
                o.push('\n');
            }
            let _ = write!(
                o,
                "{} {} ⚠ {}: {} ({}:{})",
                clock(f.at.unwrap_or(0)),
                esc(&lane.name),
                esc(f.rule),
                esc(&f.message),
                esc(file_name(&f.file)),
                f.line
            );
        }
        o.push_str("</title></g>");
    }
    o.push_str("</g>\n</svg>");
}

/// Red diamonds for findings not on a spoken line.
struct Flag {
    id: String,
    lane: usize,
    x: f64,
    findings: Vec<usize>,
}

/// Findings that are not on a mark, grouped per lane where their diamonds
/// would overlap.
fn flags(p: &Page, g: &Geo) -> Vec<Flag> {
    let mut items: Vec<(usize, f64, usize)> = p
        .findings
        .iter()
        .enumerate()
        .filter_map(|(k, f)| match (f.lane, f.at, f.mark) {
            (Some(l), Some(at), None) if l < p.lanes.len() => Some((l, g.x(at), k)),
            _ => None,
        })
        .collect();
    items.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut out: Vec<Flag> = Vec::new();
    for (lane, x, k) in items {
        match out.last_mut() {
            Some(fl) if fl.lane == lane && x - fl.x < 12.0 => fl.findings.push(k),
            _ => out.push(Flag {
                id: format!("fl{k}"),
                lane,
                x,
                findings: vec![k],
            }),
        }
    }
    out
}

/// The id of the timeline element of each finding: its mark or its flag.
fn targets(p: &Page, flags: &[Flag]) -> Vec<Option<String>> {
    let mut t: Vec<Option<String>> = p
        .findings
        .iter()
        .map(|f| f.mark.map(|m| format!("m{m}")))
        .collect();
    for fl in flags {
        for &k in &fl.findings {
            t[k] = Some(fl.id.clone());
        }
    }
    t
}

fn kind_name(k: LaneKind) -> &'static str {
    match k {
        LaneKind::Human => "human",
        LaneKind::Voicebot => "voicebot",
        LaneKind::Agent => "agent",
    }
}

/// At most `max` characters, with an ellipsis when cut.
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

fn agents_table(p: &Page, o: &mut String) {
    o.push_str(
        "<section id=\"agents\"><h2>Agents</h2>\n<table class=\"agents\"><thead><tr>\
         <th>Agent</th><th>Role</th><th>Log</th><th class=\"num\">Says</th><th class=\"num\">Words</th>\
         <th class=\"num\" title=\"times the human addressed the agent\">Addressed</th>\
         <th class=\"num\" title=\"from the human's line to the agent's first say\">Ack median</th>\
         <th class=\"num\">Ack worst</th><th class=\"num\" title=\"addressed, and said nothing before the human spoke again\">No ack</th>\
         <th class=\"num\" title=\"says over Delta, in another agent's turn, or answering what was asked of the human or another agent\">Out of turn</th>\
         <th>Findings by rule</th></tr></thead><tbody>\n",
    );
    for a in &p.agents {
        let k = p.lanes.iter().position(|l| l.name == a.name);
        let color = k.map(|k| lane_color(&p.lanes, k)).unwrap_or("#888");
        let opt = |v: Option<Ms>| v.map(seconds).unwrap_or_else(|| "–".to_string());
        let _ = write!(
            o,
            "<tr class=\"agent\" data-agent=\"{}\"><td class=\"name\"><span class=\"dot\" style=\"background:{color}\"></span><b>{}</b></td><td>{}</td><td>{}</td>\
             <td class=\"num says\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num ack-median\">{}</td><td class=\"num ack-worst\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"rules\">",
            esc(&a.name),
            esc(&a.name),
            a.role.unwrap_or("–"),
            if a.logs.is_empty() {
                "<small>none</small>".to_string()
            } else {
                a.logs
                    .iter()
                    .map(|l| format!("<code>{}</code>", esc(file_name(l))))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            a.says,
            a.words,
            a.addressed,
            opt(a.median_ack()),
            opt(a.worst_ack()),
            a.unanswered,
            a.out_of_turn
                .map(|n| n.to_string())
                .unwrap_or_else(|| "–".to_string()),
        );
        if a.by_rule.is_empty() {
            o.push_str("<span class=\"none\">none</span>");
        }
        for (rule, n) in &a.by_rule {
            let _ = write!(
                o,
                "<span class=\"chip\" data-rule=\"{}\">{} <b>{n}</b></span> ",
                esc(rule),
                esc(rule)
            );
        }
        o.push_str("</td></tr>\n");
    }
    o.push_str("</tbody></table>\n<p class=\"note\">Ack: from the human's line naming the agent to the agent's first say, as the agent's own log records them (from the merged timeline for an agent without a log). Out of turn needs the agent's own log.</p></section>\n");
}

fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

fn findings(p: &Page, targets: &[Option<String>], o: &mut String) {
    let _ = writeln!(
        o,
        "<section id=\"findings\"><h2>Findings <small>({})</small></h2>",
        p.findings.len()
    );
    if p.findings.is_empty() {
        o.push_str("<p class=\"none\">No findings: every rule passed.</p>");
    }
    // One table per agent, in lane order, then findings about no agent.
    let mut groups: Vec<(Option<usize>, Vec<usize>)> = Vec::new();
    for (k, f) in p.findings.iter().enumerate() {
        let key = f.lane;
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(k),
            None => groups.push((key, vec![k])),
        }
    }
    groups.sort_by_key(|g| g.0.unwrap_or(usize::MAX));
    for (lane, rows) in groups {
        let name = match lane {
            Some(l) => p.lanes[l].name.clone(),
            None => "No participant".to_string(),
        };
        let color = lane.map(|l| lane_color(&p.lanes, l)).unwrap_or("#888");
        let _ = write!(
            o,
            "<h3><span class=\"dot\" style=\"background:{color}\"></span>{} <small>({} finding{})</small></h3>\n\
             <table class=\"findings\"><thead><tr><th>Time</th><th>Where</th><th>Rule</th><th>Finding</th></tr></thead><tbody>\n",
            esc(&name),
            rows.len(),
            if rows.len() == 1 { "" } else { "s" }
        );
        for k in rows {
            let f = &p.findings[k];
            let target = targets[k].as_deref().unwrap_or("");
            let _ = writeln!(
                o,
                "<tr class=\"finding sev-{sev}\" id=\"f{k}\" data-rule=\"{rule}\" data-mark=\"{target}\" data-file=\"{file}\" data-line=\"{line}\">\
                 <td class=\"time\">{time}</td><td class=\"where\"><code>{short}:{line}:{col}</code></td>\
                 <td><span class=\"sev\">{sev}</span><br><b class=\"rule\">{rule}</b></td>\
                 <td><div class=\"msg\">{msg}</div>{help}<pre class=\"src\"><span class=\"ln\">{line}</span>{before}<mark>{hit}</mark>{after}</pre></td></tr>",
                sev = f.severity.name(),
                rule = esc(f.rule),
                file = esc(&f.file),
                short = esc(file_name(&f.file)),
                line = f.line,
                col = f.column,
                time = f.at.map(clock).unwrap_or_else(|| "–".to_string()),
                msg = esc(&f.message),
                help = f
                    .help
                    .as_deref()
                    .map(|h| format!("<div class=\"help\">help: {}</div>", esc(h)))
                    .unwrap_or_default(),
                before = esc(split(f).0),
                hit = esc(split(f).1),
                after = esc(split(f).2),
            );
        }
        o.push_str("</tbody></table>\n");
    }
    o.push_str("</section>\n");
}

/// The source line around the value the finding points at.
fn split(f: &FindingRow) -> (&str, &str, &str) {
    let s = &f.source;
    match (s.get(..f.hit.0), s.get(f.hit.0..f.hit.1), s.get(f.hit.1..)) {
        (Some(a), Some(b), Some(c)) => (a, b, c),
        _ => (s, "", ""),
    }
}

/// Installed first: counts script errors into `data-errors` on the root
/// element, so a test (or a reader of the DOM) sees them.
pub(crate) const GUARD: &str = "document.documentElement.setAttribute('data-errors','0');window.addEventListener('error',function(e){var r=document.documentElement;r.setAttribute('data-errors',String(Number(r.getAttribute('data-errors'))+1));r.setAttribute('data-error',String(e.message));});";

/// Links the findings table and the timeline; marks the page ready.
const SCRIPT: &str = r#"
(function () {
  var body = document.body;
  function target(row) {
    var id = row.getAttribute('data-mark');
    return id ? document.getElementById(id) : null;
  }
  document.querySelectorAll('tr.finding').forEach(function (row) {
    var m = target(row);
    if (!m) return;
    row.addEventListener('mouseenter', function () { m.classList.add('hl'); });
    row.addEventListener('mouseleave', function () { m.classList.remove('hl'); });
    row.querySelector('td.time').addEventListener('click', function () {
      m.scrollIntoView({ block: 'center', inline: 'center' });
    });
  });
  document.querySelectorAll('#timeline .mark.has-finding, #timeline .flag').forEach(function (m) {
    m.addEventListener('click', function () {
      var row = document.querySelector('tr.finding[data-mark="' + m.id + '"]');
      if (!row) return;
      row.scrollIntoView({ block: 'center' });
      row.classList.add('flash');
      setTimeout(function () { row.classList.remove('flash'); }, 1600);
    });
  });
  document.querySelectorAll('.chip[data-rule]').forEach(function (chip) {
    var rule = chip.getAttribute('data-rule');
    chip.addEventListener('mouseenter', function () {
      document.querySelectorAll('#timeline .mark, #timeline .flag').forEach(function (m) {
        var rules = (m.getAttribute('data-rules') || m.getAttribute('data-rule') || '').split(' ');
        if (rules.indexOf(rule) >= 0) m.classList.add('hl');
      });
    });
    chip.addEventListener('mouseleave', function () {
      document.querySelectorAll('#timeline .hl').forEach(function (m) { m.classList.remove('hl'); });
    });
  });
  body.setAttribute('data-marks', String(document.querySelectorAll('#timeline .mark').length));
  body.setAttribute('data-flags', String(document.querySelectorAll('#timeline .flag').length));
  body.setAttribute('data-findings', String(document.querySelectorAll('tr.finding').length));
  var res = (window.performance && performance.getEntriesByType) ? performance.getEntriesByType('resource').length : 0;
  body.setAttribute('data-resources', String(res));
  body.setAttribute('data-ready', '1');
})();
"#;

const CSS: &str = r#"
:root { color-scheme: light; --ink: #1d2330; --muted: #5d6577; --line: #e3e6ee; --red: #d01c1c; }
* { box-sizing: border-box; }
body { margin: 0; padding: 18px 24px 40px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #f6f7fb; }
h1 { font-size: 22px; margin: 0 0 8px; font-weight: 650; }
h2 { font-size: 17px; margin: 22px 0 8px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
small { color: var(--muted); font-weight: normal; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12px; }
header { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 14px 18px; }
.stats { display: flex; flex-wrap: wrap; gap: 10px; margin: 4px 0 12px; }
.stat { background: #f3f5fa; border-radius: 8px; padding: 6px 14px; min-width: 96px; }
.stat .v { font-size: 20px; font-weight: 650; font-variant-numeric: tabular-nums; }
.stat .k { font-size: 12px; color: var(--muted); }
.stat.bad .v { color: var(--red); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 3px 16px; margin: 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; }
.dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 6px; vertical-align: baseline; }
.who { white-space: nowrap; }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 6px 18px; padding: 10px 4px 0; margin: 0; color: var(--muted); font-size: 13px; }
.legend li { display: flex; align-items: center; gap: 6px; }
.legend .hint { font-style: italic; }
.scroll { overflow-x: auto; background: #fff; border: 1px solid var(--line); border-radius: 10px; }
#timeline { display: block; font-family: inherit; }
#timeline .band { fill: #ffffff; }
#timeline .band.odd { fill: #f7f8fc; }
#timeline .lane-line { stroke-width: 1; stroke-opacity: .35; }
#timeline .presence { fill-opacity: .13; }
#timeline .lane-name { font-size: 14px; font-weight: 650; fill: var(--ink); }
#timeline .lane-role { font-size: 11px; fill: var(--muted); }
#timeline .lane-findings { fill: var(--red); font-weight: 600; }
#timeline .flag-count { font-size: 10px; font-weight: 700; fill: var(--red); }
pre.src mark { background: #ffd7d7; color: inherit; border-radius: 2px; outline: 1px solid #f19c9c; }
#timeline .grid { stroke: #e6e8ef; stroke-width: 1; }
#timeline .tick { font-size: 11px; fill: var(--muted); text-anchor: middle; font-variant-numeric: tabular-nums; }
#timeline .link { fill: none; stroke-width: 1.3; stroke-opacity: .5; }
#timeline .mark circle { stroke-width: 1.5; cursor: default; }
#timeline .mark.has-finding circle, #timeline .flag { cursor: pointer; }
#timeline .mark.dropped circle { stroke-dasharray: 2 2; stroke-width: 1.5; }
#timeline .mark:hover circle, #timeline .mark:focus circle, #timeline .mark.hl circle { stroke: #000; stroke-width: 2.5; }
#timeline .flag:hover path, #timeline .flag.hl path { stroke: #000; stroke-width: 2; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); border-radius: 10px; overflow: hidden; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef0f6; font-weight: 600; font-size: 13px; white-space: nowrap; }
td.name { white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.chip { display: inline-block; background: #fde8e8; color: #8c1010; border-radius: 10px; padding: 0 8px; margin: 1px 0; font-size: 12px; white-space: nowrap; cursor: default; }
.none { color: var(--muted); }
.note { color: var(--muted); font-size: 12px; margin: 6px 2px; }
table.findings td.time { white-space: nowrap; font-variant-numeric: tabular-nums; cursor: pointer; }
table.findings td.where { white-space: nowrap; }
table.findings .rule { color: var(--red); white-space: nowrap; }
table.findings .sev { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
tr.sev-error .sev { color: var(--red); font-weight: 700; }
.msg { font-weight: 550; }
.help { color: var(--muted); font-size: 13px; }
pre.src { margin: 6px 0 0; padding: 6px 8px; background: #f3f4f8; border-radius: 6px; white-space: pre-wrap; word-break: break-all; max-height: 9.5em; overflow: auto; }
pre.src .ln { color: var(--muted); margin-right: 10px; user-select: none; }
tr.finding.flash td { background: #fff4c2; }
footer { margin-top: 28px; color: var(--muted); font-size: 12px; }
"#;

/// `sha256-…` of a script, for the Content-Security-Policy.
pub(crate) fn script_hash(script: &str) -> String {
    format!("sha256-{}", base64(&sha256(script.as_bytes())))
}

fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// SHA-256 (FIPS 180-4), for the two script hashes of the page.
fn sha256(data: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    let bits = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bits.to_be_bytes());
    for block in msg.chunks(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 32];
    for (i, x) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_and_base64_known_answers() {
        assert_eq!(
            base64(&sha256(b"")),
            "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
        );
        assert_eq!(
            base64(&sha256(b"abc")),
            "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="
        );
        // Two blocks.
        let long = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        assert_eq!(
            base64(&sha256(long.as_bytes())),
            "JI1qYdIGOLjlwCaTDD5gOaM85Flk/yFn9uzt1BnbBsE="
        );
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"a"), "YQ==");
    }

    #[test]
    fn clocks_and_dates() {
        assert_eq!(clock(684_082), "11:24");
        assert_eq!(clock(3_725_000), "1:02:05");
        assert_eq!(seconds(1450), "1.45 s");
        assert_eq!(tick_step(PLOT_W / 684_082.0), 60_000);
        assert_eq!(tick_step(0.1), 1_000);
        // Years: whole hours, a few hundred ticks at most.
        let years = 8_000 * 365 * 86_400_000_i64;
        let step = tick_step(MAX_PLOT_W / years as f64);
        assert!(years / step < 500, "{step}");
        assert_eq!(seconds(1455), "1.46 s");
        assert_eq!(date_time(1_791_622_804_100), "2026-10-10 09:00:04 UTC");
        assert_eq!(date_time(36_002_000), "10:00:02 UTC");
    }

    #[test]
    fn medians() {
        let mut a = AgentRow {
            acks: vec![1650, 1450, 1550],
            ..AgentRow::default()
        };
        assert_eq!((a.median_ack(), a.worst_ack()), (Some(1550), Some(1650)));
        a.acks.push(1000);
        assert_eq!(a.median_ack(), Some(1500));
        a.acks.clear();
        assert_eq!(a.median_ack(), None);
    }

    #[test]
    fn log_text_stays_text() {
        let page = Page {
            title: Some("<b>t</b>".into()),
            duration: 10_000,
            lanes: vec![Lane {
                name: "x\" onmouseover=\"alert(1)".into(),
                kind: LaneKind::Agent,
                role: None,
                present: vec![],
            }],
            marks: vec![Mark {
                lane: 0,
                at: 1000,
                text: "<script>alert(1)</script>".into(),
                addressed: vec![],
                dropped: false,
                findings: vec![],
            }],
            ..Page::default()
        };
        let h = render(&page);
        assert!(h.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(!h.contains("<script>alert"));
        assert!(!h.contains("<b>t</b>"));
        assert!(h.contains("data-lane=\"x&quot; onmouseover=&quot;alert(1)\""));
    }
}
