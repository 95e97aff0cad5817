//! Server-sent events, as a streamable-HTTP MCP server sends its messages:
//! each event's `data:` lines are one JSON-RPC message.

/// Reads events out of the bytes of a stream as they come.
#[derive(Default)]
pub struct Events {
    buf: Vec<u8>,
}

impl Events {
    /// Add `chunk`; the data of every event it completes.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<Vec<u8>> {
        self.buf.extend_from_slice(chunk);
        let mut out = Vec::new();
        while let Some((end, skip)) = boundary(&self.buf) {
            let event: Vec<u8> = self.buf.drain(..end + skip).collect();
            if let Some(d) = data(&event[..end]) {
                out.push(d);
            }
        }
        out
    }

    /// The data of an event the stream ended in the middle of.
    pub fn finish(&mut self) -> Option<Vec<u8>> {
        let rest = std::mem::take(&mut self.buf);
        data(&rest)
    }
}

/// Where the first event of `buf` ends (a blank line), and the length of
/// the line breaks that end it.
fn boundary(buf: &[u8]) -> Option<(usize, usize)> {
    let mut k = 0;
    while k < buf.len() {
        let nl = memchr::memchr(b'\n', &buf[k..])? + k;
        let next = nl + 1;
        if buf.get(next) == Some(&b'\n') {
            return Some((nl, 2));
        }
        if buf.get(next) == Some(&b'\r') && buf.get(next + 1) == Some(&b'\n') {
            return Some((nl, 3));
        }
        k = next;
    }
    None
}

/// The `data:` lines of one event, joined by line breaks.
fn data(event: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    for line in event.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(rest) = line.strip_prefix(b"data:") else {
            continue;
        };
        let rest = rest.strip_prefix(b" ").unwrap_or(rest);
        match &mut out {
            Some(d) => {
                d.push(b'\n');
                d.extend_from_slice(rest);
            }
            None => out = Some(rest.to_vec()),
        }
    }
    out
}

/// One event carrying `data` (a JSON text on one line).
pub fn event(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 16);
    out.extend_from_slice(b"event: message\ndata: ");
    out.extend_from_slice(data);
    out.extend_from_slice(b"\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_across_chunks() {
        let mut e = Events::default();
        assert!(e.push(b"id: 1\nevent: message\ndata: {\"a\"").is_empty());
        let got = e.push(b":1}\n\n: comment\n\ndata: x\r\ndata: y\r\n\r\ndata: z");
        assert_eq!(got, vec![b"{\"a\":1}".to_vec(), b"x\ny".to_vec()]);
        assert_eq!(e.finish(), Some(b"z".to_vec()));
    }
}
