//! Streamable HTTP: a remote MCP server behind the proxy, reached with a
//! `POST` of each message (answered with JSON or a stream of server-sent
//! events), a `GET` stream of the server's own messages, a `DELETE` that
//! ends the session, and the `Mcp-Session-Id` header that ties them.
//!
//! [`serve`] is the proxy as an HTTP server for clients configured with a
//! URL; [`stdio_front`] is the proxy as a command for clients that can only
//! start one. Headers such as `Authorization` are passed on untouched and
//! written nowhere.

use crate::core::hash::HashMap;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Body, Frame, Incoming};
use hyper::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::Value;
use tokio::sync::mpsc;

use super::{sse, warn, RecordTo, Session, Tally, MAX_MESSAGE, UPSTREAM_FAILED};
use crate::lint::engine::Linter;

const SESSION: &str = "mcp-session-id";

/// What every session of one proxy shares.
pub struct Upstream {
    pub url: reqwest::Url,
    pub linter: Arc<Linter>,
    pub policy: super::Policy,
    pub record: Option<RecordTo>,
    pub tally: Arc<Mutex<Tally>>,
}

type Shared = Arc<Mutex<Session>>;

fn lock(s: &Shared) -> std::sync::MutexGuard<'_, Session> {
    s.lock().unwrap_or_else(|e| e.into_inner())
}

impl Upstream {
    fn session(&self, name: &str) -> Session {
        let record = self.record.as_ref().and_then(|r| match r.open(name) {
            Ok(r) => Some(r),
            Err(e) => {
                warn(&format!("cannot open the recording: {e}; not recording"));
                None
            }
        });
        Session::new(self.linter.clone(), self.policy, record, self.tally.clone())
    }
}

/// The HTTP client the proxy reaches the server with: TLS by rustls, no
/// redirects followed (the client sees them).
pub fn client() -> Result<reqwest::Client, String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("cannot set up the HTTP client: {e}"))
}

/// A response body: whole, or a stream fed by a task.
pub enum Out {
    Whole(Full<Bytes>),
    Stream(mpsc::UnboundedReceiver<Bytes>),
}

impl Body for Out {
    type Data = Bytes;
    type Error = io::Error;
    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        match self.get_mut() {
            Out::Whole(f) => Pin::new(f)
                .poll_frame(cx)
                .map(|o| o.map(|r| r.map_err(|e| match e {}))),
            Out::Stream(rx) => rx.poll_recv(cx).map(|o| o.map(|b| Ok(Frame::data(b)))),
        }
    }
}

fn whole(status: StatusCode, content_type: &str, body: impl Into<Bytes>) -> Response<Out> {
    let mut r = Response::new(Out::Whole(Full::new(body.into())));
    *r.status_mut() = status;
    if let Ok(v) = HeaderValue::from_str(content_type) {
        r.headers_mut().insert(CONTENT_TYPE, v);
    }
    r
}

/// The headers that belong to one hop, not passed on.
fn hop(name: &HeaderName) -> bool {
    matches!(
        name.as_str(),
        "host"
            | "content-length"
            | "connection"
            | "keep-alive"
            | "transfer-encoding"
            | "te"
            | "trailer"
            | "upgrade"
            | "proxy-authorization"
            | "proxy-connection"
    )
}

fn pass_headers(from: &HeaderMap, to: &mut HeaderMap) {
    for (k, v) in from {
        if !hop(k) {
            to.append(k.clone(), v.clone());
        }
    }
}

fn is_sse(h: &HeaderMap) -> bool {
    h.get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|s| s.starts_with("text/event-stream"))
}

/// The proxy's answers as one JSON body.
fn answers_body(answers: Vec<Value>, batch: bool) -> Vec<u8> {
    if batch || answers.len() != 1 {
        Value::Array(answers).to_string().into_bytes()
    } else {
        answers[0].to_string().into_bytes()
    }
}

/// Whether `msg` is (or a batch holds) an `initialize` request: by its
/// method, not by the word anywhere (a say may speak of initialize).
fn has_initialize(msg: Option<&Value>) -> bool {
    let is = |m: &Value| m.get("method").and_then(Value::as_str) == Some("initialize");
    match msg {
        Some(Value::Array(items)) => items.iter().any(is),
        Some(m) => is(m),
        None => false,
    }
}

/// The sessions of an HTTP proxy, by `Mcp-Session-Id` (`""` for a server
/// that gives none).
struct Front {
    up: Upstream,
    client: reqwest::Client,
    sessions: Mutex<HashMap<String, Shared>>,
    count: AtomicUsize,
    /// The session of the last voicehook call without `Mcp-Session-Id`
    /// that said which call and agent it is.
    last: Mutex<Option<String>>,
}

impl Front {
    /// The session of a message without `Mcp-Session-Id`, when it is a
    /// voicehook call: one session per call and agent, told by what the
    /// call says of itself (`call_id`, `label`: a `join` names both). A
    /// call that names only one of them belongs to the one session that
    /// has it, if exactly one does; a call that names neither, to the
    /// session of the last call that named them. None for anything else
    /// (the shared session).
    fn stateless_key(&self, m: &Value) -> Option<String> {
        if m.get("method").and_then(Value::as_str) != Some("tools/call") {
            return None;
        }
        super::call_function(m)?;
        let args = m.get("params").and_then(|p| p.get("arguments"));
        let part = |k: &str| {
            args.and_then(|a| a.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let (call, label) = (part("call_id"), part("label"));
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if call.is_none() && label.is_none() {
            return last.clone();
        }
        let key = self.key_of(call, label);
        *last = Some(key.clone());
        Some(key)
    }

    fn key_of(&self, call: Option<String>, label: Option<String>) -> String {
        let key = |c: &str, l: &str| format!("\u{0}{c}\u{0}{l}");
        if let (Some(c), Some(l)) = (&call, &label) {
            return key(c, l);
        }
        let all = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        let mut fits = all.keys().filter(|k| {
            let mut it = k
                .strip_prefix('\u{0}')
                .into_iter()
                .flat_map(|r| r.split('\u{0}'));
            let (c, l) = (it.next(), it.next());
            match (&call, &label) {
                (Some(want), None) => c == Some(want.as_str()),
                (None, Some(want)) => l == Some(want.as_str()),
                _ => false,
            }
        });
        match (fits.next(), fits.next()) {
            (Some(k), None) => k.clone(),
            _ => key(
                call.as_deref().unwrap_or(""),
                label.as_deref().unwrap_or(""),
            ),
        }
    }

    fn session_for(&self, key: Option<&str>, initialize: bool) -> Shared {
        let mut all = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        let fresh = || {
            let n = self.count.fetch_add(1, Ordering::Relaxed) + 1;
            // A stateless session is named by its call and agent.
            let name = match key.and_then(|k| k.strip_prefix('\u{0}')) {
                Some(rest) => format!("session-{n}-{}", rest.replace('\u{0}', "-")),
                None => format!("session-{n}"),
            };
            Arc::new(Mutex::new(self.up.session(&name)))
        };
        match key {
            Some(k) => all.entry(k.to_string()).or_insert_with(fresh).clone(),
            None if initialize => fresh(),
            None => all.entry(String::new()).or_insert_with(fresh).clone(),
        }
    }

    /// The upstream address for a request to `path`: the upstream URL for
    /// the root (or its own path), the same path on its host otherwise.
    fn target(&self, uri: &hyper::Uri) -> reqwest::Url {
        let path = uri.path();
        if path == "/" || path == self.up.url.path() {
            let mut u = self.up.url.clone();
            if let Some(q) = uri.query() {
                u.set_query(Some(q));
            }
            return u;
        }
        let mut u = self.up.url.clone();
        u.set_path(path);
        u.set_query(uri.query());
        u
    }
}

/// The upstream client and the runtime both front ends run on; None
/// (after saying why) when either cannot be made.
fn start() -> Option<(reqwest::Client, tokio::runtime::Runtime)> {
    let client = client().map_err(|e| warn(&e)).ok()?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| warn(&format!("cannot start: {e}")))
        .ok()?;
    Some((client, rt))
}

/// Serve the proxy on `listen` until the process is stopped. Returns an
/// exit status only when it cannot start.
pub fn serve(listen: SocketAddr, up: Upstream) -> u8 {
    let Some((client, rt)) = start() else {
        return 2;
    };
    let front = Arc::new(Front {
        up,
        client,
        sessions: Mutex::new(HashMap::default()),
        count: AtomicUsize::new(0),
        last: Mutex::new(None),
    });
    rt.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(listen).await {
            Ok(l) => l,
            Err(e) => {
                warn(&format!("cannot listen on {listen}: {e}"));
                return 2;
            }
        };
        let at = listener.local_addr().map_or(listen, |a| a);
        warn(&format!(
            "listening on http://{at}/, passing on to {}",
            front.up.url
        ));
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let front = front.clone();
            tokio::spawn(async move {
                let svc = hyper::service::service_fn(move |req| {
                    let front = front.clone();
                    async move { Ok::<_, std::convert::Infallible>(handle(&front, req).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                    .await;
            });
        }
    })
}

async fn handle(front: &Arc<Front>, req: Request<Incoming>) -> Response<Out> {
    let (parts, body) = req.into_parts();
    let body = match Limited::new(body, MAX_MESSAGE).collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            return whole(
                StatusCode::PAYLOAD_TOO_LARGE,
                "text/plain",
                format!("callint proxy: cannot read the request body: {e}\n"),
            )
        }
    };
    let key = parts
        .headers
        .get(SESSION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let url = front.target(&parts.uri);
    let is_mcp = url.path() == front.up.url.path();
    if parts.method == Method::POST && is_mcp {
        return post(front, &parts.headers, key, url, body).await;
    }
    // GET streams, DELETE, and anything else: passed on as they are.
    let mut rq = front.client.request(parts.method.clone(), url);
    let mut headers = HeaderMap::new();
    pass_headers(&parts.headers, &mut headers);
    rq = rq.headers(headers);
    if !body.is_empty() {
        rq = rq.body(body);
    }
    let resp = match rq.send().await {
        Ok(r) => r,
        Err(e) => return unreachable_upstream(&e),
    };
    if parts.method == Method::DELETE && resp.status().is_success() {
        if let Some(k) = &key {
            let gone = front
                .sessions
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(k);
            if let Some(s) = gone {
                lock(&s).close();
            }
        }
    }
    let session = (parts.method == Method::GET && is_mcp && is_sse(resp.headers()))
        .then(|| front.session_for(key.as_deref(), false));
    relay(resp, session, Vec::new(), Vec::new(), false, None).await
}

fn unreachable_upstream(e: &reqwest::Error) -> Response<Out> {
    warn(&format!("cannot reach the MCP server: {e}"));
    whole(
        StatusCode::BAD_GATEWAY,
        "text/plain",
        format!("callint proxy: cannot reach the MCP server: {e}\n"),
    )
}

async fn post(
    front: &Arc<Front>,
    headers: &HeaderMap,
    key: Option<String>,
    url: reqwest::Url,
    body: Bytes,
) -> Response<Out> {
    let msg = serde_json::from_slice::<Value>(&body).ok();
    let initialize = key.is_none() && has_initialize(msg.as_ref());
    // Without a session (the stateless protocol, or a server that gives
    // none), a voicehook call is told apart by what it says of itself.
    let own = match (&key, initialize, &msg) {
        (None, false, Some(m)) => front.stateless_key(m),
        _ => None,
    };
    let session = match own {
        Some(k) => front.session_for(Some(&k), false),
        None => front.session_for(key.as_deref(), initialize),
    };
    let act = lock(&session).from_client(&body);
    let Some(forward) = act.forward else {
        if act.answers.is_empty() {
            return whole(StatusCode::BAD_REQUEST, "text/plain", "empty message\n");
        }
        return whole(
            StatusCode::OK,
            "application/json",
            answers_body(act.answers, act.batch),
        );
    };
    let mut h = HeaderMap::new();
    pass_headers(headers, &mut h);
    let limit = front.up.policy.upstream_timeout;
    let deadline = tokio::time::Instant::now() + limit;
    let sent = front.client.post(url).headers(h).body(forward).send();
    let sent = match tokio::time::timeout_at(deadline, sent).await {
        Ok(sent) => sent,
        Err(_) => {
            let why = late(limit);
            warn(&why);
            let mut answers = act.answers;
            answers.extend(lock(&session).answer_late(&act.requests, &why));
            if answers.is_empty() {
                return whole(
                    StatusCode::GATEWAY_TIMEOUT,
                    "text/plain",
                    format!("callint proxy: {why}\n"),
                );
            }
            return whole(
                StatusCode::OK,
                "application/json",
                answers_body(answers, act.batch),
            );
        }
    };
    let resp = match sent {
        Ok(r) => r,
        Err(e) => {
            warn(&format!("cannot reach the MCP server: {e}"));
            let why = format!("callint proxy cannot reach the MCP server: {e}");
            let mut answers = act.answers;
            answers.extend(lock(&session).fail_these(Some(&act.requests), &why));
            if answers.is_empty() {
                return unreachable_upstream(&e);
            }
            return whole(
                StatusCode::OK,
                "application/json",
                answers_body(answers, act.batch),
            );
        }
    };
    if initialize && resp.status().is_success() {
        let k = resp
            .headers()
            .get(SESSION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        front
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(k, session.clone());
    }
    relay(
        resp,
        Some(session),
        act.answers,
        act.requests,
        act.batch,
        Some(deadline),
    )
    .await
}

/// Why the proxy answered a request itself after `limit`.
fn late(limit: std::time::Duration) -> String {
    format!(
        "the MCP server did not answer within {:.1} s (--upstream-timeout)",
        limit.as_secs_f64()
    )
}

/// Pass the upstream's response on. Messages in it (a JSON body or the
/// events of a stream) are recorded in `session`; the proxy's `answers`
/// go with them; `requests` still unanswered when it ends get an error.
async fn relay(
    resp: reqwest::Response,
    session: Option<Shared>,
    answers: Vec<Value>,
    requests: Vec<String>,
    batch: bool,
    deadline: Option<tokio::time::Instant>,
) -> Response<Out> {
    let status = resp.status();
    let limit = deadline.map(|d| d.saturating_duration_since(tokio::time::Instant::now()));
    let mut headers = HeaderMap::new();
    pass_headers(resp.headers(), &mut headers);
    let sse = is_sse(resp.headers());
    let late_ones = requests.clone();
    let fail = move |s: &Shared, why: &str| lock(s).fail_these(Some(&requests), why);
    let (Some(session), true) = (session, status.is_success()) else {
        // Not a message: passed on as it is.
        let body = resp.bytes().await.unwrap_or_default();
        let mut r = Response::new(Out::Whole(Full::new(body)));
        *r.status_mut() = status;
        *r.headers_mut() = headers;
        return r;
    };
    if !sse {
        let body = match deadline {
            Some(d) => match tokio::time::timeout_at(d, resp.bytes()).await {
                Ok(b) => b,
                Err(_) => {
                    let why = late(limit.unwrap_or_default());
                    warn(&why);
                    let mut a = answers;
                    a.extend(lock(&session).answer_late(&late_ones, &why));
                    return whole(StatusCode::OK, "application/json", answers_body(a, batch));
                }
            },
            None => resp.bytes().await,
        };
        let body = match body {
            Ok(b) => b,
            Err(e) => {
                let mut a = answers;
                a.extend(fail(
                    &session,
                    &format!("the MCP server's answer broke off: {e}"),
                ));
                return whole(StatusCode::OK, "application/json", answers_body(a, batch));
            }
        };
        let garbage = if body.iter().all(u8::is_ascii_whitespace) {
            None
        } else {
            lock(&session).from_server(&body).err()
        };
        if let Some(g) = garbage {
            warn(&g.0);
            let mut a = answers;
            a.extend(fail(
                &session,
                "the MCP server answered with something that is not JSON",
            ));
            if a.is_empty() {
                return whole(
                    StatusCode::BAD_GATEWAY,
                    "text/plain",
                    format!("callint proxy: {}\n", g.0),
                );
            }
            return whole(StatusCode::OK, "application/json", answers_body(a, batch));
        }
        if answers.is_empty() {
            let mut r = Response::new(Out::Whole(Full::new(body)));
            *r.status_mut() = status;
            *r.headers_mut() = headers;
            return r;
        }
        // The proxy's answers beside the server's: one batch.
        let mut all = answers;
        match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Array(items)) => all.extend(items),
            Ok(v) if !body.iter().all(u8::is_ascii_whitespace) => all.push(v),
            _ => {}
        }
        return whole(StatusCode::OK, "application/json", answers_body(all, batch));
    }
    let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
    for a in &answers {
        let _ = tx.send(Bytes::from(sse::event(a.to_string().as_bytes())));
    }
    tokio::spawn(async move {
        let mut resp = resp;
        let mut events = sse::Events::default();
        let mut broke: Option<String> = None;
        loop {
            // Past the deadline with a request of this POST unanswered, the
            // proxy answers it and ends the stream.
            let waiting = lock(&session).waits_for(&late_ones);
            let next = match deadline {
                Some(d) if waiting => {
                    let chunk = tokio::select! {
                        c = tokio::time::timeout_at(d, resp.chunk()) => c,
                        () = tx.closed() => {
                            // The client closed the stream: in the stateless
                            // protocol, its cancellation of the request. The
                            // server's stream is closed too; nothing is
                            // answered.
                            lock(&session).forget(&late_ones);
                            return;
                        }
                    };
                    match chunk {
                        Ok(n) => n,
                        Err(_) => {
                            let why = late(limit.unwrap_or_default());
                            warn(&why);
                            let failed = lock(&session).answer_late(&late_ones, &why);
                            for e in failed {
                                let _ = tx.send(Bytes::from(sse::event(e.to_string().as_bytes())));
                            }
                            break;
                        }
                    }
                }
                _ => resp.chunk().await,
            };
            match next {
                Ok(Some(c)) => {
                    for data in events.push(&c) {
                        if let Err(g) = lock(&session).from_server(&data) {
                            warn(&g.0);
                        }
                    }
                    if tx.send(c).is_err() {
                        break; // the client went away
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    broke = Some(format!("the MCP server's stream broke off: {e}"));
                    break;
                }
            }
        }
        let why =
            broke.unwrap_or_else(|| "the MCP server ended its stream before it answered".into());
        for e in fail(&session, &why) {
            let _ = tx.send(Bytes::from(sse::event(e.to_string().as_bytes())));
        }
    });
    let mut r = Response::new(Out::Stream(rx));
    *r.status_mut() = status;
    *r.headers_mut() = headers;
    r
}

/// The proxy as a command in front of a remote server: the client's lines
/// on standard input are posted, the answers (JSON or events) written to
/// standard output a line each. Returns 0 when the client closes,
/// [`UPSTREAM_FAILED`] when the server cannot be reached or its answer
/// breaks off; an answer that is not JSON fails only the requests it should
/// have answered.
pub fn stdio_front(up: Upstream, headers: Vec<(String, String)>) -> u8 {
    let Some((client, rt)) = start() else {
        return 2;
    };
    let mut extra = HeaderMap::new();
    for (k, v) in headers {
        match (
            HeaderName::try_from(k.as_str()),
            HeaderValue::try_from(v.as_str()),
        ) {
            (Ok(k), Ok(v)) => {
                extra.append(k, v);
            }
            _ => {
                warn(&format!(
                    "--header {} is not a valid header",
                    crate::core::escape::quote(&k, 40)
                ));
                return 2;
            }
        }
    }
    let session: Shared = Arc::new(Mutex::new(up.session("stdio")));
    // Standard input, read by a thread of its own.
    let (in_tx, mut in_rx) = mpsc::unbounded_channel::<Option<Vec<u8>>>();
    std::thread::spawn(move || {
        use std::io::BufRead;
        let mut r = io::BufReader::new(io::stdin());
        loop {
            let mut line = Vec::new();
            match r.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if in_tx.send(Some(line)).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = in_tx.send(None);
    });
    // Standard output, written by one thread in the order given.
    let (out_tx, out_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let stdout = io::stdout();
        let mut out = stdout.lock();
        for line in out_rx {
            if out
                .write_all(&line)
                .and_then(|()| out.write_all(b"\n"))
                .and_then(|()| out.flush())
                .is_err()
            {
                break;
            }
        }
    });
    let kept = session.clone();
    let status = rt.block_on(async move {
        let link = Arc::new(Link {
            client,
            url: up.url.clone(),
            extra,
            session_id: Mutex::new(None),
            protocol: Mutex::new(None),
            timeout: up.policy.upstream_timeout,
            out: out_tx.clone(),
            session: session.clone(),
            fatal: Mutex::new(None),
            fatal_note: tokio::sync::Notify::new(),
        });
        let mut tasks = tokio::task::JoinSet::new();
        let status = loop {
            let line = tokio::select! {
                l = in_rx.recv() => l.flatten(),
                () = link.fatal_note.notified() => break UPSTREAM_FAILED,
            };
            let Some(line) = line else { break 0 };
            let act = lock(&session).from_client(&line);
            if !act.answers.is_empty() {
                let _ = out_tx.send(answers_body(act.answers, act.batch));
            }
            let Some(bytes) = act.forward else { continue };
            if act.requests.is_empty() {
                // Notifications and answers go in order, one after another.
                link.post(bytes, act.requests, act.headers).await;
            } else {
                let link = link.clone();
                tasks.spawn(async move { link.post(bytes, act.requests, act.headers).await });
            }
            if link.failed() {
                break UPSTREAM_FAILED;
            }
        };
        if status == UPSTREAM_FAILED {
            let why = link
                .fatal
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
                .unwrap_or_default();
            for e in lock(&session).fail_in_flight(&why) {
                let _ = out_tx.send(e.to_string().into_bytes());
            }
        } else {
            // The client closed: end the session on the server.
            let id = link
                .session_id
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone();
            if let Some(id) = id {
                let _ = link
                    .client
                    .delete(link.url.clone())
                    .headers(link.extra.clone())
                    .header(SESSION, id)
                    .timeout(std::time::Duration::from_secs(2))
                    .send()
                    .await;
            }
        }
        tasks.abort_all();
        status
    });
    lock(&kept).close();
    drop(writer);
    status
}

/// What the stdio front's posts share.
struct Link {
    client: reqwest::Client,
    url: reqwest::Url,
    /// Headers to send with every request (`--header`).
    extra: HeaderMap,
    session_id: Mutex<Option<String>>,
    protocol: Mutex<Option<String>>,
    /// `--upstream-timeout`.
    timeout: std::time::Duration,
    out: std::sync::mpsc::Sender<Vec<u8>>,
    session: Shared,
    fatal: Mutex<Option<String>>,
    fatal_note: tokio::sync::Notify,
}

impl Link {
    fn failed(&self) -> bool {
        self.fatal
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    fn fail(&self, why: String) {
        warn(&why);
        let mut f = self.fatal.lock().unwrap_or_else(|e| e.into_inner());
        if f.is_none() {
            *f = Some(why);
        }
        self.fatal_note.notify_one();
    }

    fn request(&self, method: Method, own: &[(&'static str, String)]) -> reqwest::RequestBuilder {
        let mut rq = self
            .client
            .request(method, self.url.clone())
            .headers(self.extra.clone())
            .header("accept", "application/json, text/event-stream");
        if let Some(id) = self
            .session_id
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        {
            rq = rq.header(SESSION, id);
        }
        if own.is_empty() {
            // The 2025 protocols: the version initialize settled.
            if let Some(p) = self
                .protocol
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
            {
                rq = rq.header("mcp-protocol-version", p);
            }
        }
        for (k, v) in own {
            rq = rq.header(*k, v.as_str());
        }
        rq
    }

    /// Hand one message from the server to the client. A message that is
    /// not JSON is left out with a warning (false): the requests it should
    /// have answered get an error, and the session goes on.
    fn deliver(&self, data: &[u8]) -> bool {
        if let Err(g) = lock(&self.session).from_server(data) {
            warn(&g.0);
            return false;
        }
        if let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(data) {
            if let Some(v) = m
                .get("result")
                .and_then(|r| r.get("protocolVersion"))
                .and_then(Value::as_str)
            {
                *self.protocol.lock().unwrap_or_else(|e| e.into_inner()) = Some(v.to_string());
            }
        }
        let line: Vec<u8> = data
            .iter()
            .copied()
            .filter(|&b| b != b'\n' && b != b'\r')
            .collect();
        let _ = self.out.send(line);
        true
    }

    /// Post one message (or batch) from the client, and hand on what the
    /// server answers; the requests in it that the server does not answer
    /// in time (`--upstream-timeout`) get an error.
    async fn post(
        self: &Arc<Self>,
        bytes: Vec<u8>,
        requests: Vec<String>,
        headers: Vec<(&'static str, String)>,
    ) {
        let limit = self.timeout;
        let done = tokio::time::timeout(limit, self.exchange(bytes, &requests, &headers)).await;
        if done.is_err() {
            let why = format!(
                "the MCP server did not answer within {:.1} s (--upstream-timeout)",
                limit.as_secs_f64()
            );
            warn(&why);
            let failed = lock(&self.session).answer_late(&requests, &why);
            for e in failed {
                let _ = self.out.send(e.to_string().into_bytes());
            }
        }
    }

    async fn exchange(
        self: &Arc<Self>,
        bytes: Vec<u8>,
        requests: &[String],
        headers: &[(&'static str, String)],
    ) {
        let sent = self
            .request(Method::POST, headers)
            .header(CONTENT_TYPE, "application/json")
            .body(bytes)
            .send()
            .await;
        let resp = match sent {
            Ok(r) => r,
            Err(e) => return self.fail(format!("cannot reach the MCP server: {e}")),
        };
        let status = resp.status();
        let given = resp
            .headers()
            .get(SESSION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        {
            let mut s = self.session_id.lock().unwrap_or_else(|e| e.into_inner());
            if status.is_client_error() {
                // A refused message starts no session (a server of the 2025
                // protocols refusing the stateless `server/discover` may
                // still name one), and a session the server no longer
                // knows is over: the client's `initialize` starts afresh.
                *s = None;
            } else if let (Some(id), true, None) = (given, status.is_success(), s.as_ref()) {
                *s = Some(id);
                drop(s);
                let me = self.clone();
                tokio::spawn(async move { me.listen().await });
            }
        }
        if !status.is_success() {
            let text = resp.text().await.unwrap_or_default();
            let why = format!(
                "the MCP server answered HTTP {status}: {}",
                crate::core::escape::one_line(&text.chars().take(200).collect::<String>())
            );
            warn(&why);
            for e in lock(&self.session).fail_these(Some(requests), &why) {
                let _ = self.out.send(e.to_string().into_bytes());
            }
            return;
        }
        if is_sse(resp.headers()) {
            self.stream(resp).await;
        } else {
            match resp.bytes().await {
                Ok(b) if b.iter().all(u8::is_ascii_whitespace) => {}
                Ok(b) => {
                    if !self.deliver(&b) {
                        let why = "the MCP server answered with something that is not JSON";
                        for e in lock(&self.session).fail_these(Some(requests), why) {
                            let _ = self.out.send(e.to_string().into_bytes());
                        }
                        return;
                    }
                }
                Err(e) => return self.fail(format!("the MCP server's answer broke off: {e}")),
            }
        }
        let why = "the MCP server ended its answer without answering";
        for e in lock(&self.session).fail_these(Some(requests), why) {
            let _ = self.out.send(e.to_string().into_bytes());
        }
    }

    async fn stream(&self, mut resp: reqwest::Response) {
        let mut events = sse::Events::default();
        loop {
            match resp.chunk().await {
                Ok(Some(c)) => {
                    for d in events.push(&c) {
                        // an event that is not JSON is skipped
                        self.deliver(&d);
                    }
                }
                Ok(None) => break,
                Err(e) => return self.fail(format!("the MCP server's stream broke off: {e}")),
            }
        }
        if let Some(d) = events.finish() {
            self.deliver(&d);
        }
    }

    /// The server's own stream (`GET`), when it offers one.
    async fn listen(self: Arc<Self>) {
        let Ok(resp) = self.request(Method::GET, &[]).send().await else {
            return;
        };
        if resp.status().is_success() && is_sse(resp.headers()) {
            let mut events = sse::Events::default();
            let mut resp = resp;
            while let Ok(Some(c)) = resp.chunk().await {
                for d in events.push(&c) {
                    self.deliver(&d);
                }
            }
        }
    }
}
