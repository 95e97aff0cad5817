//! Messages in and out over standard input and output, framed as the
//! protocol frames them (`Content-Length` headers).
//!
//! lsp-server's own reader stops at the first message it cannot read; this
//! one answers such a message with a JSON-RPC error (a parse error, or an
//! invalid request when the message carries an id) and reads on. Only the
//! end of the input, or input that cannot be framed any more, ends it.

use std::io::{BufRead, Write};

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Message, RequestId, Response};

/// JSON-RPC's code of a message that is no JSON.
const PARSE_ERROR: i32 = -32700;
/// JSON-RPC's code of JSON that is no message.
const INVALID_REQUEST: i32 = -32600;

/// The largest message read: a document of this size is far past what an
/// editor sends.
const MAX_MESSAGE: usize = 1 << 30;

/// Messages longer than this are parsed as they are read, never held
/// whole beside what is parsed from them: opening a large log costs its
/// text twice at most (the text, and the parser's buffer of one string),
/// not three or four times.
const STREAMED: usize = 1 << 20;

/// What goes out: a message, or an error answer to a message that could
/// not be read (its id, when it had one, else null).
pub enum Out {
    Message(Message),
    Unreadable {
        id: Option<serde_json::Value>,
        code: i32,
        message: String,
    },
}

/// The threads reading and writing, joined at the end.
pub struct Threads {
    reader: std::thread::JoinHandle<()>,
    writer: std::thread::JoinHandle<()>,
}

impl Threads {
    /// Wait for the writer to send what is left. The reader is not waited
    /// for: it may sit in a read of an input nobody closes.
    pub fn join(self) {
        let _ = self.writer.join();
        drop(self.reader);
    }
}

/// Start reading `input` and writing `output` on threads of their own.
/// Messages read arrive on the receiver returned; what is sent on the
/// sender returned is written.
pub fn start(
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) -> (Sender<Out>, Receiver<Message>, Threads) {
    let (out_tx, out_rx) = crossbeam_channel::unbounded::<Out>();
    let (in_tx, in_rx) = crossbeam_channel::unbounded::<Message>();
    let errors = out_tx.clone();
    let reader = std::thread::Builder::new()
        .name("callint-lsp-read".into())
        .spawn(move || read_all(input, &in_tx, &errors));
    let writer = std::thread::Builder::new()
        .name("callint-lsp-write".into())
        .spawn(move || write_all(output, &out_rx));
    // A thread that cannot start leaves a handle that ends at once.
    let done = || std::thread::spawn(|| ());
    let threads = Threads {
        reader: reader.unwrap_or_else(|_| done()),
        writer: writer.unwrap_or_else(|_| done()),
    };
    (out_tx, in_rx, threads)
}

fn read_all(mut input: impl BufRead, messages: &Sender<Message>, errors: &Sender<Out>) {
    loop {
        let body = match read_frame(&mut input) {
            Frame::Body(b) => b,
            Frame::Long(n) => {
                let (message, ok) = read_long(&mut input, n);
                match message {
                    Ok(m) => {
                        let exit = matches!(&m, Message::Notification(n) if n.method == "exit");
                        if messages.send(m).is_err() || exit {
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = errors.send(e);
                    }
                }
                if !ok {
                    return;
                }
                continue;
            }
            Frame::Bad(why) => {
                let _ = errors.send(Out::Unreadable {
                    id: None,
                    code: PARSE_ERROR,
                    message: why,
                });
                continue;
            }
            Frame::End => return,
        };
        match serde_json::from_slice::<Message>(&body) {
            Ok(m) => {
                let exit = matches!(&m, Message::Notification(n) if n.method == "exit");
                if messages.send(m).is_err() || exit {
                    return;
                }
            }
            Err(e) => {
                // JSON with an id is a request we cannot read: answered
                // with its id. Anything else gets a null id.
                let value = serde_json::from_slice::<serde_json::Value>(&body);
                let (id, code) = match &value {
                    Ok(v) => (
                        v.get("id")
                            .filter(|id| id.is_string() || id.is_number())
                            .cloned(),
                        INVALID_REQUEST,
                    ),
                    Err(_) => (None, PARSE_ERROR),
                };
                let message = match value {
                    Ok(_) => format!("not a JSON-RPC message: {e}"),
                    Err(e) => format!("not JSON: {e}"),
                };
                let _ = errors.send(Out::Unreadable { id, code, message });
            }
        }
    }
}

enum Frame {
    Body(Vec<u8>),
    /// A message of this many bytes, longer than [`STREAMED`], still to
    /// be read.
    Long(usize),
    /// A frame that could not be read; reading goes on after it.
    Bad(String),
    End,
}

/// One message's bytes: headers up to a blank line, then as many bytes as
/// `Content-Length` says.
fn read_frame(input: &mut impl BufRead) -> Frame {
    let mut length: Option<Result<usize, String>> = None;
    let mut line = Vec::new();
    let mut headers = 0;
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return Frame::End,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if headers == 0 {
                // Blank lines between messages are skipped.
                continue;
            }
            break;
        }
        headers += 1;
        if let Some((name, value)) = text.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = Some(
                    value
                        .trim()
                        .parse::<usize>()
                        .map_err(|_| format!("Content-Length {:?} is no number", value.trim())),
                );
            }
        }
    }
    let n = match length {
        Some(Ok(n)) if n <= MAX_MESSAGE => n,
        Some(Ok(n)) => {
            // Too long to hold: skipped, and answered.
            if std::io::copy(
                &mut std::io::Read::take(&mut *input, n as u64),
                &mut std::io::sink(),
            )
            .is_err()
            {
                return Frame::End;
            }
            return Frame::Bad(format!("a message of {n} bytes is too long"));
        }
        Some(Err(why)) => return Frame::Bad(why),
        None => return Frame::Bad("a message without a Content-Length header".into()),
    };
    if n > STREAMED {
        return Frame::Long(n);
    }
    let mut body = vec![0; n];
    match input.read_exact(&mut body) {
        Ok(()) => Frame::Body(body),
        Err(_) => Frame::End,
    }
}

/// Read a message of `n` bytes, parsing it as it is read: the message, or
/// the error to answer it with; and whether the input can be read on (all
/// of the message's bytes were read).
fn read_long(input: &mut impl BufRead, n: usize) -> (Result<Message, Out>, bool) {
    let mut frame = std::io::Read::take(input, n as u64);
    let value = serde_json::from_reader::<_, serde_json::Value>(&mut frame);
    // What a message that is no JSON leaves unread is skipped.
    let ok = std::io::copy(&mut frame, &mut std::io::sink()).is_ok() && frame.limit() == 0;
    let value = match value {
        Ok(v) => v,
        Err(e) => {
            let out = Out::Unreadable {
                id: None,
                code: PARSE_ERROR,
                message: format!("not JSON: {e}"),
            };
            return (Err(out), ok);
        }
    };
    let id = value
        .get("id")
        .filter(|id| id.is_string() || id.is_number())
        .cloned();
    // The parameters (a document's text) are moved into the message, not
    // copied on the way as reading the message whole would copy them.
    let mut value = value;
    let params = value.as_object_mut().and_then(|m| m.remove("params"));
    let message = serde_json::from_value::<Message>(value)
        .map(|mut m| {
            match (&mut m, params) {
                (Message::Request(r), Some(p)) => r.params = p,
                (Message::Notification(n), Some(p)) => n.params = p,
                _ => {}
            }
            m
        })
        .map_err(|e| Out::Unreadable {
            id,
            code: INVALID_REQUEST,
            message: format!("not a JSON-RPC message: {e}"),
        });
    (message, ok)
}

fn write_all(mut output: impl Write, out: &Receiver<Out>) {
    for o in out {
        let text = match o {
            Out::Message(m) => {
                let mut buf = Vec::new();
                // lsp-server frames the message itself.
                if m.write(&mut buf).is_err() {
                    continue;
                }
                if output
                    .write_all(&buf)
                    .and_then(|()| output.flush())
                    .is_err()
                {
                    return;
                }
                continue;
            }
            Out::Unreadable { id, code, message } => serde_json::json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": code, "message": message},
            })
            .to_string(),
        };
        let framed = format!("Content-Length: {}\r\n\r\n{text}", text.len());
        if output
            .write_all(framed.as_bytes())
            .and_then(|()| output.flush())
            .is_err()
        {
            return;
        }
    }
}

/// An error answer to a request.
pub fn error(id: RequestId, code: lsp_server::ErrorCode, message: impl Into<String>) -> Out {
    Out::Message(Message::Response(Response::new_err(
        id,
        code as i32,
        message.into(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn unreadable_messages_are_answered_and_reading_goes_on() {
        let input = [
            frame("{not json"),
            frame(r#"{"jsonrpc":"2.0","id":7,"method":5}"#),
            "X-Nothing: 1\r\n\r\n".to_string(),
            frame(r#"{"jsonrpc":"2.0","method":"exit"}"#),
        ]
        .concat();
        let (out, messages, threads) =
            start(std::io::Cursor::new(input.into_bytes()), std::io::sink());
        let m = messages.recv().unwrap();
        assert!(matches!(m, Message::Notification(n) if n.method == "exit"));
        drop(out);
        drop(threads);
    }

    /// The id and error code of each message the reader refused.
    fn refused(erx: &crossbeam_channel::Receiver<Out>) -> Vec<(Option<serde_json::Value>, i32)> {
        erx.try_iter()
            .map(|o| match o {
                Out::Unreadable { id, code, .. } => (id, code),
                Out::Message(_) => (None, 0),
            })
            .collect()
    }

    #[test]
    fn errors_carry_the_id_of_json_that_is_no_message() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let (etx, erx) = crossbeam_channel::unbounded();
        let input = [frame(r#"{"jsonrpc":"2.0","id":7,"method":5}"#), frame("]")].concat();
        read_all(std::io::Cursor::new(input.into_bytes()), &tx, &etx);
        let got = refused(&erx);
        assert_eq!(
            got,
            [
                (Some(serde_json::json!(7)), INVALID_REQUEST),
                (None, PARSE_ERROR)
            ]
        );
        assert!(rx.try_recv().is_err());
    }

    #[test]
    fn long_messages_are_read_as_they_come_like_short_ones() {
        let text = "a line \u{e4}\u{1F600} \"quoted\"\n".repeat(STREAMED / 16);
        let open = serde_json::json!({
            "jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": "file:///a", "languageId": "plaintext", "version": 1, "text": text}},
        })
        .to_string();
        let long = "y".repeat(STREAMED);
        // Cut off before its end, and a method that is no string.
        let cut = format!(r#"{{"jsonrpc":"2.0","id":4,"method":"x","params":"{long}""#);
        let wrong = format!(r#"{{"jsonrpc":"2.0","id":5,"method":7,"params":"{long}"}}"#);
        assert!(open.len() > STREAMED && cut.len() > STREAMED);
        let input = [
            frame(&open),
            frame(&cut),
            frame(&wrong),
            frame(r#"{"jsonrpc":"2.0","method":"exit"}"#),
        ]
        .concat();
        let (tx, rx) = crossbeam_channel::unbounded();
        let (etx, erx) = crossbeam_channel::unbounded();
        read_all(std::io::Cursor::new(input.into_bytes()), &tx, &etx);
        let got: Vec<Message> = rx.try_iter().collect();
        assert_eq!(got.len(), 2);
        match &got[0] {
            Message::Notification(n) => {
                assert_eq!(n.method, "textDocument/didOpen");
                assert_eq!(n.params["textDocument"]["text"].as_str(), Some(&text[..]));
                assert_eq!(n.params["textDocument"]["version"], 1);
            }
            m => panic!("{m:?}"),
        }
        assert!(matches!(&got[1], Message::Notification(n) if n.method == "exit"));
        let errors = refused(&erx);
        assert_eq!(
            errors,
            [
                (None, PARSE_ERROR),
                (Some(serde_json::json!(5)), INVALID_REQUEST)
            ]
        );
    }
}
