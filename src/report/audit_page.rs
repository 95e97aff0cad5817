//! The audit as one self-contained HTML page.
//!
//! The page holds its numbers as one JSON block (names in tables, counts
//! by index) and one inline script that draws the tables and the charts
//! (SVG) from them, again whenever a filter changes. It loads nothing:
//! its Content-Security-Policy is `default-src 'none'` and admits its own
//! two scripts by hash. Every text from a log has its unsafe characters
//! made visible ([`crate::core::escape::one_line`]) and reaches the page
//! inside JSON in which `<`, `>` and `&` are escaped, and the script puts
//! it in the page as text (`textContent`), never as markup.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::{json, Value};

use super::audit::Audit;
use super::html::{script_hash, GUARD};
use crate::core::diagnostic::Severity;
use crate::core::escape::{html as esc, one_line};

const SEVERITIES: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];

/// The page, whole. `title` names what was audited.
pub fn page(a: &Audit, title: &str) -> String {
    let data = data(a);
    let mut o = String::with_capacity(data.len() + 32 * 1024);
    let csp = format!(
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src '{}' '{}'",
        script_hash(GUARD),
        script_hash(SCRIPT)
    );
    let title = esc(&one_line(title));
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Audit: {title}</title>\n<script>{GUARD}</script>\n<style>{CSS}</style>\n</head>\n<body>\n\
         <header><h1>Audit: <span class=\"what\">{title}</span></h1>\n\
         <form id=\"filters\" class=\"filters\" autocomplete=\"off\">\
         <label>Rule <select id=\"f-rule\"><option value=\"\">all rules</option></select></label>\
         <label>Agent <select id=\"f-agent\"><option value=\"\">all agents</option></select></label>\
         <label>Severity <select id=\"f-sev\"><option value=\"\">all</option></select></label>\
         <label>From <select id=\"f-from\"></select></label>\
         <label>To <select id=\"f-to\"></select></label>\
         <button type=\"button\" id=\"f-reset\">Show all</button></form>\n\
         <div id=\"stats\" class=\"stats\"></div>\n<div id=\"severity\"></div>\n\
         <noscript><p class=\"note\">This page draws its tables and charts with its own script; \
         the numbers are also in <code>callint audit --format json</code>.</p></noscript>\n</header>\n\
         <section id=\"since\" hidden><h2>Since the baseline</h2><div id=\"since-body\"></div></section>\n\
         <section><h2>Over time <small id=\"bucket\"></small></h2>\
         <div class=\"pair\"><div class=\"chartwrap\"><h3>Calls</h3><svg id=\"trend-calls\" class=\"chart\" role=\"img\" aria-label=\"calls over time\"></svg></div>\
         <div class=\"chartwrap\"><h3>Findings per 100 says</h3><svg id=\"trend-rates\" class=\"chart\" role=\"img\" aria-label=\"rates over time\"></svg><div id=\"trend-legend\" class=\"legend\"></div></div></div></section>\n\
         <section><h2>Findings by rule</h2><div class=\"pair\"><div class=\"tablewrap\"><table id=\"rules\" class=\"sortable\">\
         <thead><tr><th data-type=\"text\">Rule</th><th data-type=\"text\">Default</th>\
         <th class=\"num\" data-type=\"num\">Findings</th><th class=\"num\" data-type=\"num\">Per 100 says</th></tr></thead>\
         <tbody></tbody></table></div><div class=\"chartwrap\"><svg id=\"rule-chart\" class=\"chart\" role=\"img\" aria-label=\"findings per 100 says by rule\"></svg></div></div></section>\n\
         <section><h2>Findings by agent</h2><div class=\"pair\"><div class=\"tablewrap\"><table id=\"agents\" class=\"sortable\">\
         <thead><tr><th data-type=\"text\">Agent</th><th class=\"num\" data-type=\"num\">Says</th>\
         <th class=\"num\" data-type=\"num\">Findings</th><th class=\"num\" data-type=\"num\">Per 100 says</th></tr></thead>\
         <tbody></tbody></table></div><div class=\"chartwrap\"><svg id=\"agent-chart\" class=\"chart\" role=\"img\" aria-label=\"findings per 100 says by agent\"></svg></div></div></section>\n\
         <section><h2>Calls to open first</h2><p class=\"note\" id=\"calls-note\"></p><table id=\"calls\" class=\"sortable\">\
         <thead><tr><th data-type=\"text\">Call</th><th data-type=\"text\">Day</th>\
         <th class=\"num\" data-type=\"num\">Errors</th><th class=\"num\" data-type=\"num\">Findings</th>\
         <th data-type=\"text\">Rules</th><th data-type=\"text\">Files</th></tr></thead><tbody></tbody></table></section>\n\
         <footer>Written by callint {}. This page loads nothing from the network; every text from the logs is shown as text. \
         Rates are findings per 100 of the agents' own says; a call's day is when its first dated record was written (UTC).</footer>\n\
         <script type=\"application/json\" id=\"audit-data\">{data}</script>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
    o
}

/// The page's numbers as JSON safe inside a `<script>` element: every
/// `<`, `>` and `&` (and the two line separators JavaScript once read as
/// line ends) escaped as `\uXXXX`, which JSON reads back as the same text.
fn data(a: &Audit) -> String {
    let v = compact(a);
    let text = serde_json::to_string(&v).unwrap_or_else(|_| "{}".into());
    let mut out = String::with_capacity(text.len() + 64);
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// Names in tables, everything else by index into them.
fn compact(a: &Audit) -> Value {
    let shown = |s: &str| one_line(s);
    let days = a.day_keys();
    let day_at: BTreeMap<&str, usize> = days.iter().enumerate().map(|(k, d)| (*d, k)).collect();
    let mut rules: Vec<&str> = a.by_rule.keys().map(String::as_str).collect();
    rules.sort_unstable();
    let rule_at: BTreeMap<&str, usize> = rules.iter().enumerate().map(|(k, r)| (*r, k)).collect();
    let mut agents: Vec<&str> = a
        .by_agent
        .keys()
        .chain(a.says.keys())
        .map(String::as_str)
        .collect();
    agents.sort_unstable();
    agents.dedup();
    let agent_at: BTreeMap<&str, usize> = agents.iter().enumerate().map(|(k, r)| (*r, k)).collect();
    let sev_at = |s: &str| SEVERITIES.iter().position(|x| x.name() == s);
    let agent_ix = |a: &Option<String>| -> i64 {
        a.as_deref()
            .and_then(|a| agent_at.get(a))
            .map_or(-1, |&k| k as i64)
    };
    let mut cells = Vec::new();
    let mut says = Vec::new();
    let mut day_calls = Vec::new();
    for (d, key) in days.iter().enumerate() {
        let day = &a.days[*key];
        day_calls.push(day.calls);
        for (agent, n) in &day.says {
            if let Some(&k) = agent_at.get(agent.as_str()) {
                says.push(json!([d, k, n]));
            }
        }
        for c in &day.findings {
            if let (Some(&r), Some(s)) = (rule_at.get(c.rule.as_str()), sev_at(&c.severity)) {
                cells.push(json!([d, r, agent_ix(&c.agent), s, c.n]));
            }
        }
    }
    let top: Vec<Value> = a
        .top
        .iter()
        .map(|row| {
            let cells: Vec<Value> = row
                .cells
                .iter()
                .filter_map(|c| {
                    let r = rule_at.get(c.rule.as_str())?;
                    let s = sev_at(&c.severity)?;
                    Some(json!([r, agent_ix(&c.agent), s, c.n]))
                })
                .collect();
            let mut files: Vec<String> = row.files.iter().take(3).map(|f| shown(f)).collect();
            if row.files.len() > 3 {
                files.push(format!("and {} more", row.files.len() - 3));
            }
            json!([
                shown(&row.key),
                day_at.get(row.day.as_str()).map_or(-1, |&k| k as i64),
                row.page.as_deref().filter(|p| safe_href(p)),
                files.join(", "),
                cells
            ])
        })
        .collect();
    let since = a.baseline.as_ref().map(|s| {
        let fixed: Vec<Value> = s
            .fixed
            .iter()
            .map(|f| {
                json!([
                    shown(&f.rule),
                    f.agent.as_deref().map(shown),
                    f.call.as_deref().map(shown),
                    shown(&f.file),
                    shown(&f.message)
                ])
            })
            .collect();
        json!({"accepted": s.accepted, "fixed": fixed})
    });
    let defaults: Vec<&str> = rules
        .iter()
        .map(|r| {
            crate::rules::meta(r)
                .map(|m| m.default_severity.name())
                .unwrap_or("")
        })
        .collect();
    json!({
        "files": a.files,
        "records": a.records,
        "calls": a.calls,
        "rules": rules.iter().map(|r| shown(r)).collect::<Vec<_>>(),
        "defaults": defaults,
        "agents": agents.iter().map(|r| shown(r)).collect::<Vec<_>>(),
        "sevs": SEVERITIES.iter().map(|s| s.name()).collect::<Vec<_>>(),
        "days": days,
        "dayCalls": day_calls,
        "says": says,
        "cells": cells,
        "top": top,
        "since": since,
    })
}

/// A link the audit wrote itself: a relative path of plain characters,
/// never a scheme (`javascript:`) or a way out of the folder.
fn safe_href(p: &str) -> bool {
    !p.is_empty()
        && !p.starts_with('/')
        && !p.split('/').any(|s| s == "..")
        && p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'_' | b'.'))
        && !p.contains(':')
}

/// Draws everything from the data block; again on every filter change.
const SCRIPT: &str = r#"
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('audit-data').textContent);
  var NS = 'http://www.w3.org/2000/svg';
  var COLORS = ['#d01c1c', '#1f4e8c', '#2a9d5b', '#c77800', '#7b3fa0', '#00838f', '#8d6e63', '#5d6577'];
  var SEVC = { error: '#d01c1c', warning: '#e08a00', info: '#5b7bb5' };
  var R = D.rules.length, A = D.agents.length, N = D.days.length;
  var undated = N > 0 && D.days[N - 1] === 'undated';
  var state = { rule: -1, agent: -1, sev: -1, from: 0, to: N - 1 };
  var sorts = {};

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, String(attrs[k]));
    if (text !== null && text !== undefined) e.textContent = String(text);
    return e;
  }
  function sv(tag, attrs, text) {
    var e = document.createElementNS(NS, tag);
    if (attrs) for (var k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== null && text !== undefined) e.textContent = String(text);
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
  function zeros(n) { var z = []; for (var i = 0; i < n; i++) z.push(0); return z; }
  function per100(n, says) { return says > 0 ? Math.round(n * 10000 / says) / 100 : null; }
  function rate(r) { return r === null ? '-' : r.toFixed(2); }

  function inRange(d) { return d >= state.from && d <= state.to; }
  function keep(d, r, a, s) {
    return inRange(d) && (state.rule < 0 || r === state.rule) &&
      (state.agent < 0 || a === state.agent) && (state.sev < 0 || s === state.sev);
  }

  function compute() {
    var c = { byRule: zeros(R), byAgent: zeros(A), bySev: [0, 0, 0], byDay: [], total: 0,
      saysAgent: zeros(A), saysDay: zeros(N), says: 0, calls: 0, agentsSeen: 0 };
    for (var d = 0; d < N; d++) c.byDay.push(zeros(R));
    D.cells.forEach(function (x) {
      if (!keep(x[0], x[1], x[2], x[3])) return;
      c.byRule[x[1]] += x[4];
      if (x[2] >= 0) c.byAgent[x[2]] += x[4];
      c.bySev[x[3]] += x[4];
      c.byDay[x[0]][x[1]] += x[4];
      c.total += x[4];
    });
    D.says.forEach(function (x) {
      if (!inRange(x[0])) return;
      c.saysAgent[x[1]] += x[2];
      if (state.agent < 0 || x[1] === state.agent) { c.says += x[2]; c.saysDay[x[0]] += x[2]; }
    });
    for (var k = 0; k < N; k++) if (inRange(k)) c.calls += D.dayCalls[k];
    for (var a = 0; a < A; a++) if (c.byAgent[a] > 0 || c.saysAgent[a] > 0) c.agentsSeen++;
    return c;
  }

  function stat(box, id, label, value, cls) {
    var s = el('div', { 'class': 'stat' + (cls ? ' ' + cls : '') });
    s.appendChild(el('div', { 'class': 'v', id: id }, value));
    s.appendChild(el('div', { 'class': 'k' }, label));
    box.appendChild(s);
  }

  function drawStats(c) {
    var box = document.getElementById('stats');
    clear(box);
    stat(box, 'n-calls', 'calls', c.calls);
    stat(box, 'n-agents', 'agents', state.agent >= 0 ? 1 : c.agentsSeen);
    stat(box, 'n-says', 'says', c.says);
    stat(box, 'n-findings', 'findings', c.total, c.total ? 'bad' : '');
    stat(box, 'n-rate', 'per 100 says', rate(per100(c.total, c.says)));
    stat(box, 'n-files', 'files', D.files);
    var sev = document.getElementById('severity');
    clear(sev);
    var w = 600, svg = sv('svg', { id: 'severity-bar', 'class': 'chart', width: w, height: 26, viewBox: '0 0 ' + w + ' 26' });
    var x = 0;
    D.sevs.forEach(function (name, i) {
      var n = c.bySev[i];
      var bw = c.total ? n / c.total * w : 0;
      if (bw > 0) {
        var r = sv('rect', { 'class': 'bar sev-' + name, x: x.toFixed(1), y: 3, width: bw.toFixed(1), height: 20, fill: SEVC[name] });
        r.appendChild(sv('title', null, n + ' ' + name));
        svg.appendChild(r);
      }
      x += bw;
    });
    sev.appendChild(svg);
    var legend = el('div', { 'class': 'legend', id: 'severity-split' });
    D.sevs.forEach(function (name, i) {
      var item = el('span', { 'data-severity': name });
      item.appendChild(el('span', { 'class': 'dot', style: 'background:' + SEVC[name] }));
      item.appendChild(document.createTextNode(name + ': '));
      item.appendChild(el('b', { 'class': 'n' }, c.bySev[i]));
      legend.appendChild(item);
    });
    sev.appendChild(legend);
  }

  function fill(table, rows) {
    var tb = table.tBodies[0];
    clear(tb);
    rows.forEach(function (r) { tb.appendChild(r); });
    var s = sorts[table.id];
    if (s) sortRows(table, s.col, s.dir);
  }
  function td(text, v, cls) {
    return el('td', { 'data-v': v === undefined ? text : v, 'class': cls || null }, text);
  }

  function drawRules(c) {
    var rows = [], items = [];
    for (var r = 0; r < R; r++) {
      if (c.byRule[r] === 0) continue;
      items.push([r, c.byRule[r]]);
    }
    items.sort(function (a, b) { return b[1] - a[1] || (D.rules[a[0]] < D.rules[b[0]] ? -1 : 1); });
    items.forEach(function (it) {
      var tr = el('tr', { 'class': 'rule', 'data-rule': D.rules[it[0]] });
      tr.appendChild(td(D.rules[it[0]], undefined, 'name'));
      tr.appendChild(td(D.defaults[it[0]]));
      tr.appendChild(td(it[1], it[1], 'num n'));
      var p = per100(it[1], c.says);
      tr.appendChild(td(rate(p), p === null ? -1 : p, 'num per'));
      rows.push(tr);
    });
    fill(document.getElementById('rules'), rows);
    bars(document.getElementById('rule-chart'), items.slice(0, 15).map(function (it) {
      var p = per100(it[1], c.says);
      return { label: D.rules[it[0]], value: p === null ? it[1] : p, text: p === null ? String(it[1]) : rate(p) };
    }), '#d01c1c');
  }

  function drawAgents(c) {
    var rows = [], items = [];
    for (var a = 0; a < A; a++) {
      if (state.agent >= 0 && a !== state.agent) continue;
      if (c.byAgent[a] === 0 && c.saysAgent[a] === 0) continue;
      items.push([a, c.saysAgent[a], c.byAgent[a]]);
    }
    items.sort(function (x, y) { return y[2] - x[2] || y[1] - x[1] || (D.agents[x[0]] < D.agents[y[0]] ? -1 : 1); });
    items.forEach(function (it) {
      var tr = el('tr', { 'class': 'agent', 'data-agent': D.agents[it[0]] });
      tr.appendChild(td(D.agents[it[0]], undefined, 'name'));
      tr.appendChild(td(it[1], it[1], 'num says'));
      tr.appendChild(td(it[2], it[2], 'num n'));
      var p = per100(it[2], it[1]);
      tr.appendChild(td(rate(p), p === null ? -1 : p, 'num per'));
      rows.push(tr);
    });
    fill(document.getElementById('agents'), rows);
    bars(document.getElementById('agent-chart'), items.filter(function (it) { return it[2] > 0 && it[1] > 0; }).slice(0, 15).map(function (it) {
      var p = per100(it[2], it[1]);
      return { label: D.agents[it[0]], value: p === null ? 0 : p, text: rate(p) };
    }), '#1f4e8c');
  }

  function bars(svg, items, color) {
    clear(svg);
    var W = 520, row = 22, left = 190, right = 60;
    var H = Math.max(row, items.length * row) + 6;
    svg.setAttribute('width', W); svg.setAttribute('height', H);
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    if (!items.length) {
      svg.appendChild(sv('text', { x: 8, y: 16, 'class': 'empty' }, 'nothing found'));
      return;
    }
    var max = Math.max.apply(null, items.map(function (i) { return i.value; })) || 1;
    items.forEach(function (it, k) {
      var y = 3 + k * row;
      var label = it.label.length > 28 ? it.label.slice(0, 27) + '\u2026' : it.label;
      svg.appendChild(sv('text', { x: left - 8, y: y + 15, 'class': 'label', 'text-anchor': 'end' }, label));
      var w = Math.max(1, it.value / max * (W - left - right));
      var r = sv('rect', { 'class': 'bar', x: left, y: y + 3, width: w.toFixed(1), height: row - 7, fill: color });
      r.appendChild(sv('title', null, it.label + ': ' + it.text));
      svg.appendChild(r);
      svg.appendChild(sv('text', { x: left + w + 6, y: y + 15, 'class': 'value' }, it.text));
    });
  }

  // Days as UTC dates; a span of more than 90 days is drawn by week.
  function dayNum(s) { var p = s.split('-'); return Date.UTC(+p[0], +p[1] - 1, +p[2]) / 86400000; }
  function dayName(n) { return new Date(n * 86400000).toISOString().slice(0, 10); }

  function drawTrend(c) {
    var dated = [];
    for (var d = 0; d < N; d++) if (inRange(d) && !(undated && d === N - 1)) dated.push(d);
    var first = dated.length ? dayNum(D.days[dated[0]]) : 0;
    var last = dated.length ? dayNum(D.days[dated[dated.length - 1]]) : -1;
    var byWeek = last - first > 90;
    document.getElementById('bucket').textContent = dated.length ? (byWeek ? 'by week (from Monday)' : 'by day') : '';
    var monday = function (n) { return n - ((new Date(n * 86400000).getUTCDay() + 6) % 7); };
    var keys = [], at = {}, buckets = [];
    // Every day (or week) from the first to the last, those without calls too.
    for (var n = byWeek ? monday(first) : first; n <= last; n += byWeek ? 7 : 1) {
      at[n] = keys.length;
      keys.push(dayName(n));
      buckets.push({ calls: 0, says: 0, rules: zeros(R) });
    }
    dated.forEach(function (d) {
      var n = dayNum(D.days[d]);
      var b = buckets[at[byWeek ? monday(n) : n]];
      b.calls += D.dayCalls[d];
      b.says += c.saysDay[d];
      for (var r = 0; r < R; r++) b.rules[r] += c.byDay[d][r];
    });
    lines(document.getElementById('trend-calls'), keys, [{ name: 'calls', color: '#1f4e8c', values: buckets.map(function (b) { return b.calls; }) }], false);
    var order = [];
    for (var r = 0; r < R; r++) if (c.byRule[r] > 0) order.push(r);
    order.sort(function (a, b) { return c.byRule[b] - c.byRule[a]; });
    // A day without says has no rate: a gap in the line.
    var series = order.slice(0, 5).map(function (r, k) {
      return { name: D.rules[r], color: COLORS[k % COLORS.length], values: buckets.map(function (b) { return b.says > 0 ? Math.round(b.rules[r] * 10000 / b.says) / 100 : null; }) };
    });
    lines(document.getElementById('trend-rates'), keys, series, true);
    var legend = document.getElementById('trend-legend');
    clear(legend);
    series.forEach(function (s) {
      var item = el('span');
      item.appendChild(el('span', { 'class': 'dot', style: 'background:' + s.color }));
      item.appendChild(document.createTextNode(s.name));
      legend.appendChild(item);
    });
  }

  function lines(svg, keys, series, decimals) {
    clear(svg);
    var W = 520, H = 220, L = 48, Rm = 14, T = 12, B = 34;
    svg.setAttribute('width', W); svg.setAttribute('height', H);
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    if (!keys.length || !series.length) {
      svg.appendChild(sv('text', { x: 8, y: 20, 'class': 'empty' }, keys.length ? 'nothing found' : 'no dated calls'));
      return;
    }
    var max = 0;
    series.forEach(function (s) { s.values.forEach(function (v) { if (v > max) max = v; }); });
    if (max <= 0) max = 1;
    var x = function (i) { return keys.length === 1 ? L + (W - L - Rm) / 2 : L + i * (W - L - Rm) / (keys.length - 1); };
    var y = function (v) { return T + (H - T - B) * (1 - v / max); };
    [0, 0.5, 1].forEach(function (f) {
      var v = max * f;
      svg.appendChild(sv('line', { 'class': 'grid', x1: L, x2: W - Rm, y1: y(v).toFixed(1), y2: y(v).toFixed(1) }));
      svg.appendChild(sv('text', { 'class': 'tick', x: L - 6, y: (y(v) + 4).toFixed(1), 'text-anchor': 'end' }, decimals ? v.toFixed(1) : String(Math.round(v))));
    });
    var step = Math.max(1, Math.ceil(keys.length / 6));
    keys.forEach(function (k, i) {
      if (i % step === 0 || i === keys.length - 1) {
        svg.appendChild(sv('text', { 'class': 'tick', x: x(i).toFixed(1), y: H - 12, 'text-anchor': 'middle' }, k.slice(5)));
      }
    });
    series.forEach(function (s) {
      var d = '', pen = 'M';
      s.values.forEach(function (v, i) {
        if (v === null) { pen = 'M'; return; }
        d += pen + x(i).toFixed(1) + ' ' + y(v).toFixed(1) + ' ';
        pen = 'L';
      });
      if (d) svg.appendChild(sv('path', { 'class': 'line', d: d.trim(), stroke: s.color, 'data-series': s.name }));
      s.values.forEach(function (v, i) {
        if (v === null || keys.length > 120) return;
        var p = sv('circle', { 'class': 'pt', cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 3, fill: s.color });
        p.appendChild(sv('title', null, s.name + ', ' + keys[i] + ': ' + (decimals ? v.toFixed(2) : v)));
        svg.appendChild(p);
      });
    });
  }

  function drawCalls() {
    var rows = [];
    var items = [];
    D.top.forEach(function (t) {
      if (!(t[1] < 0 ? state.from === 0 && state.to === N - 1 : inRange(t[1]))) return;
      var n = 0, errors = 0, rules = {};
      t[4].forEach(function (x) {
        if (!keep(t[1] < 0 ? state.from : t[1], x[0], x[1], x[2])) return;
        n += x[3];
        if (D.sevs[x[2]] === 'error') errors += x[3];
        rules[x[0]] = (rules[x[0]] || 0) + x[3];
      });
      if (n > 0) items.push([t, n, errors, rules]);
    });
    items.sort(function (a, b) { return b[2] - a[2] || b[1] - a[1] || (a[0][0] < b[0][0] ? -1 : 1); });
    items.forEach(function (it) {
      var t = it[0];
      var tr = el('tr', { 'class': 'call', 'data-call': t[0] });
      var cell = el('td', { 'data-v': t[0], 'class': 'name' });
      if (t[2]) cell.appendChild(el('a', { href: t[2], 'class': 'open' }, t[0]));
      else cell.appendChild(el('span', null, t[0]));
      tr.appendChild(cell);
      tr.appendChild(td(t[1] >= 0 ? D.days[t[1]] : 'undated'));
      tr.appendChild(td(it[2], it[2], 'num errors'));
      tr.appendChild(td(it[1], it[1], 'num n'));
      var names = Object.keys(it[3]).map(Number).sort(function (a, b) { return it[3][b] - it[3][a]; });
      tr.appendChild(td(names.slice(0, 3).map(function (r) { return D.rules[r] + ' ' + it[3][r]; }).join(', ') + (names.length > 3 ? ', \u2026' : '')));
      tr.appendChild(td(t[3], undefined, 'files'));
      rows.push(tr);
    });
    fill(document.getElementById('calls'), rows);
    document.getElementById('calls-note').textContent = D.top.length
      ? 'The calls with most errors and findings, and each rule\u2019s and agent\u2019s calls with most findings of it; ' +
        rows.length + ' of ' + D.top.length + ' shown. Each opens its post-mortem.'
      : 'No call has a finding.';
  }

  function drawSince(c) {
    var sec = document.getElementById('since');
    if (!D.since) return;
    sec.hidden = false;
    var box = document.getElementById('since-body');
    clear(box);
    var fixed = D.since.fixed.filter(function (f) {
      return (state.rule < 0 || f[0] === D.rules[state.rule]) && (state.agent < 0 || f[1] === D.agents[state.agent]);
    });
    var p = el('p', { 'class': 'since-line' });
    p.appendChild(el('b', { id: 'n-new' }, c.total));
    p.appendChild(document.createTextNode(' new findings (the ones counted on this page), '));
    p.appendChild(el('b', { id: 'n-fixed' }, fixed.length));
    p.appendChild(document.createTextNode(' fixed (baseline entries that matched nothing), '));
    p.appendChild(el('b', { id: 'n-accepted' }, D.since.accepted));
    p.appendChild(document.createTextNode(' accepted by the baseline.'));
    box.appendChild(p);
    var byRule = {};
    for (var r = 0; r < R; r++) if (c.byRule[r] > 0) byRule[D.rules[r]] = [c.byRule[r], 0];
    fixed.forEach(function (f) { (byRule[f[0]] = byRule[f[0]] || [0, 0])[1] += 1; });
    var t = el('table', { id: 'since-rules', 'class': 'sortable' });
    var head = el('tr');
    [['Rule', 'text'], ['New', 'num'], ['Fixed', 'num']].forEach(function (h) { head.appendChild(el('th', { 'data-type': h[1], 'class': h[1] === 'num' ? 'num' : null }, h[0])); });
    t.appendChild(el('thead')).appendChild(head);
    var tb = t.appendChild(el('tbody'));
    Object.keys(byRule).sort().forEach(function (name) {
      var tr = el('tr', { 'data-rule': name });
      tr.appendChild(td(name, undefined, 'name'));
      tr.appendChild(td(byRule[name][0], byRule[name][0], 'num new'));
      tr.appendChild(td(byRule[name][1], byRule[name][1], 'num fixed'));
      tb.appendChild(tr);
    });
    box.appendChild(t);
    sortable(t);
    if (fixed.length) {
      var ft = el('table', { id: 'fixed' });
      var fh = el('tr');
      ['Rule', 'Agent', 'Call', 'File', 'What it said'].forEach(function (h) { fh.appendChild(el('th', null, h)); });
      ft.appendChild(el('thead')).appendChild(fh);
      var fb = ft.appendChild(el('tbody'));
      fixed.slice(0, 500).forEach(function (f) {
        var tr = el('tr', { 'class': 'fixed' });
        [f[0], f[1] || '', f[2] || '', f[3], f[4]].forEach(function (v) { tr.appendChild(el('td', null, v)); });
        fb.appendChild(tr);
      });
      box.appendChild(el('h3', null, 'Fixed'));
      box.appendChild(ft);
    }
  }

  function sortRows(table, col, dir) {
    var tb = table.tBodies[0];
    var num = table.tHead.rows[0].cells[col].getAttribute('data-type') === 'num';
    var rows = Array.prototype.slice.call(tb.rows);
    rows.sort(function (a, b) {
      var x = a.cells[col].getAttribute('data-v'), y = b.cells[col].getAttribute('data-v');
      var o = num ? Number(x) - Number(y) : (x < y ? -1 : x > y ? 1 : 0);
      return dir * o;
    });
    rows.forEach(function (r) { tb.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, k) {
      th.setAttribute('aria-sort', k === col ? (dir > 0 ? 'ascending' : 'descending') : 'none');
    });
  }
  function sortable(table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, k) {
      th.tabIndex = 0;
      th.addEventListener('click', function () {
        var s = sorts[table.id];
        var dir = s && s.col === k ? -s.dir : (th.getAttribute('data-type') === 'num' ? -1 : 1);
        sorts[table.id] = { col: k, dir: dir };
        sortRows(table, k, dir);
      });
    });
  }

  function draw() {
    var c = compute();
    drawStats(c);
    drawRules(c);
    drawAgents(c);
    drawTrend(c);
    drawCalls();
    drawSince(c);
    body.setAttribute('data-findings', String(c.total));
    body.setAttribute('data-bars', String(document.querySelectorAll('svg.chart rect.bar').length));
    body.setAttribute('data-lines', String(document.querySelectorAll('svg.chart path.line').length));
    body.setAttribute('data-calls', String(document.querySelectorAll('#calls tbody tr').length));
  }

  var body = document.body;
  var f = { rule: document.getElementById('f-rule'), agent: document.getElementById('f-agent'),
    sev: document.getElementById('f-sev'), from: document.getElementById('f-from'), to: document.getElementById('f-to') };
  D.rules.forEach(function (r, k) { f.rule.appendChild(el('option', { value: k }, r)); });
  D.agents.forEach(function (a, k) { f.agent.appendChild(el('option', { value: k }, a)); });
  D.sevs.forEach(function (s, k) { f.sev.appendChild(el('option', { value: k }, s)); });
  D.days.forEach(function (d, k) {
    f.from.appendChild(el('option', { value: k }, d));
    f.to.appendChild(el('option', { value: k }, d));
  });
  function fromForm() {
    state.rule = f.rule.value === '' ? -1 : Number(f.rule.value);
    state.agent = f.agent.value === '' ? -1 : Number(f.agent.value);
    state.sev = f.sev.value === '' ? -1 : Number(f.sev.value);
    state.from = Number(f.from.value || 0);
    state.to = Number(f.to.value || N - 1);
    if (state.to < state.from) { var t = state.to; state.to = state.from; state.from = t; }
  }
  function toForm() {
    f.rule.value = state.rule < 0 ? '' : String(state.rule);
    f.agent.value = state.agent < 0 ? '' : String(state.agent);
    f.sev.value = state.sev < 0 ? '' : String(state.sev);
    f.from.value = String(state.from);
    f.to.value = String(Math.max(0, state.to));
  }
  function toHash() {
    var parts = [];
    if (state.rule >= 0) parts.push('rule=' + encodeURIComponent(D.rules[state.rule]));
    if (state.agent >= 0) parts.push('agent=' + encodeURIComponent(D.agents[state.agent]));
    if (state.sev >= 0) parts.push('severity=' + D.sevs[state.sev]);
    if (state.from > 0) parts.push('from=' + D.days[state.from]);
    if (state.to < N - 1) parts.push('to=' + D.days[state.to]);
    try { history.replaceState(null, '', parts.length ? '#' + parts.join('&') : location.pathname); } catch (e) { /* a page opened from disk may not */ }
  }
  function fromHash() {
    var h = location.hash.replace(/^#/, '');
    if (!h) return;
    h.split('&').forEach(function (kv) {
      var i = kv.indexOf('=');
      if (i < 0) return;
      var k = kv.slice(0, i), v;
      try { v = decodeURIComponent(kv.slice(i + 1)); } catch (e) { return; }
      if (k === 'rule') state.rule = D.rules.indexOf(v);
      else if (k === 'agent') state.agent = D.agents.indexOf(v);
      else if (k === 'severity') state.sev = D.sevs.indexOf(v);
      else if (k === 'from' && D.days.indexOf(v) >= 0) state.from = D.days.indexOf(v);
      else if (k === 'to' && D.days.indexOf(v) >= 0) state.to = D.days.indexOf(v);
    });
  }
  ['rule', 'agent', 'sev', 'from', 'to'].forEach(function (k) {
    f[k].addEventListener('change', function () { fromForm(); toHash(); draw(); });
  });
  document.getElementById('f-reset').addEventListener('click', function () {
    state = { rule: -1, agent: -1, sev: -1, from: 0, to: N - 1 };
    toForm(); toHash(); draw();
  });
  window.addEventListener('hashchange', function () {
    state = { rule: -1, agent: -1, sev: -1, from: 0, to: N - 1 };
    fromHash(); toForm(); draw();
  });
  ['rules', 'agents', 'calls'].forEach(function (id) { sortable(document.getElementById(id)); });
  fromHash();
  toForm();
  draw();
  var res = (window.performance && performance.getEntriesByType) ? performance.getEntriesByType('resource').length : 0;
  body.setAttribute('data-resources', String(res));
  body.setAttribute('data-ready', '1');
})();
"#;

const CSS: &str = r#"
:root { color-scheme: light; --ink: #1d2330; --muted: #5d6577; --line: #e3e6ee; --red: #d01c1c; }
* { box-sizing: border-box; }
body { margin: 0; padding: 18px 24px 40px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #f6f7fb; }
h1 { font-size: 22px; margin: 0 0 10px; font-weight: 650; }
h2 { font-size: 17px; margin: 24px 0 8px; }
h3 { font-size: 14px; margin: 4px 0 6px; color: var(--muted); font-weight: 600; }
small { color: var(--muted); font-weight: normal; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12px; }
header { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 14px 18px; }
.filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 0 0 10px; font-size: 13px; color: var(--muted); }
.filters select, .filters button { font: inherit; color: var(--ink); padding: 2px 4px; max-width: 220px; }
.stats { display: flex; flex-wrap: wrap; gap: 10px; margin: 4px 0 10px; }
.stat { background: #f3f5fa; border-radius: 8px; padding: 6px 14px; min-width: 96px; }
.stat .v { font-size: 20px; font-weight: 650; font-variant-numeric: tabular-nums; }
.stat .k { font-size: 12px; color: var(--muted); }
.stat.bad .v { color: var(--red); }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; color: var(--muted); font-size: 13px; margin: 4px 0; }
.dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 6px; }
.pair { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.tablewrap { flex: 1 1 420px; min-width: 0; max-height: 440px; overflow-y: auto; border-radius: 10px; }
.chartwrap { flex: 0 1 auto; background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 8px; overflow-x: auto; }
svg.chart { display: block; font-family: inherit; }
svg.chart .label, svg.chart .value { font-size: 12px; fill: var(--ink); }
svg.chart .value { fill: var(--muted); }
svg.chart .grid { stroke: #e6e8ef; }
svg.chart .tick { font-size: 11px; fill: var(--muted); }
svg.chart .line { fill: none; stroke-width: 2; }
svg.chart .empty { font-size: 13px; fill: var(--muted); }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); border-radius: 10px; overflow: hidden; }
th, td { text-align: left; padding: 5px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef0f6; font-weight: 600; font-size: 13px; white-space: nowrap; cursor: pointer; user-select: none; position: sticky; top: 0; }
th[aria-sort=ascending]::after { content: " \25B2"; font-size: 10px; }
th[aria-sort=descending]::after { content: " \25BC"; font-size: 10px; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.name { word-break: break-word; }
#calls td.name { min-width: 16em; word-break: break-all; }
#calls td:nth-child(2) { white-space: nowrap; }
td.files { color: var(--muted); font-size: 12px; word-break: break-all; }
td.errors { color: var(--red); font-weight: 600; }
a.open { color: #1f4e8c; font-weight: 600; }
.note { color: var(--muted); font-size: 12px; margin: 4px 2px 8px; }
#since { background: #fffbea; border: 1px solid #f1e2a6; border-radius: 10px; padding: 4px 16px 12px; margin-top: 16px; }
footer { margin-top: 28px; color: var(--muted); font-size: 12px; }
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hrefs_stay_in_the_folder() {
        assert!(safe_href("calls/0001-c-7f.html"));
        for bad in [
            "javascript:alert(1)",
            "/etc/passwd",
            "../x.html",
            "calls/a b.html",
            "",
            "calls/\"x.html",
        ] {
            assert!(!safe_href(bad), "{bad}");
        }
    }

    #[test]
    fn log_text_cannot_close_the_data_block() {
        let mut a = Audit::default();
        a.says
            .insert("</script><script>alert(1)</script>\u{202e}".into(), 1);
        let p = page(&a, "x</title>");
        let open = "id=\"audit-data\">";
        let block = &p[p.find(open).unwrap() + open.len()..];
        let block = &block[..block.find("</script>").unwrap()];
        assert!(!block.contains('<'), "{block}");
        assert!(block.contains("\\u003c/script\\u003e"));
        assert!(!p.contains('\u{202e}'));
        assert!(p.contains("\\\\u{202e}"));
        assert!(p.contains("<title>Audit: x&lt;/title&gt;</title>"));
    }
}
