//! Sans-IO framing of the Kafka wire protocol: every request and response is
//! an `int32` big-endian size followed by that many bytes.
//!
//! [`FrameDecoder`] cuts complete frames out of a read buffer; the
//! `encode_*` helpers write the size prefix in front of a payload. Nothing
//! here performs I/O, so any transport (tokio, blocking sockets, a
//! simulator) can drive it.

use bytes::{BufMut, Bytes, BytesMut};

use crate::DecodeError;

/// Size of the length prefix of every frame.
pub const FRAME_HEADER_SIZE: usize = 4;

/// Kafka's default `socket.request.max.bytes` (100 MiB), a sensible bound
/// for [`FrameDecoder::new`].
pub const DEFAULT_MAX_FRAME_SIZE: usize = 100 * 1024 * 1024;

/// Incremental decoder of size-prefixed frames.
///
/// Feed it the connection's read buffer after every read; it returns each
/// complete frame's payload (without the 4-byte size) as a zero-copy
/// [`Bytes`] split off the buffer. A declared size that is negative or above
/// the maximum is rejected as soon as the 4-byte prefix arrives, before any
/// of the payload is buffered; the connection should then be closed.
#[derive(Debug, Clone)]
pub struct FrameDecoder {
    max_frame_size: usize,
    /// Payload size of the frame being assembled, once its prefix is consumed.
    pending: Option<usize>,
}

impl FrameDecoder {
    /// A decoder accepting payloads of at most `max_frame_size` bytes.
    pub fn new(max_frame_size: usize) -> Self {
        FrameDecoder {
            max_frame_size,
            pending: None,
        }
    }

    /// The largest payload this decoder accepts.
    pub fn max_frame_size(&self) -> usize {
        self.max_frame_size
    }

    /// Whether a frame's size prefix has been consumed but its payload is
    /// still incomplete (EOF now would cut a frame in half).
    pub fn is_mid_frame(&self) -> bool {
        self.pending.is_some()
    }

    /// Takes the next complete frame out of `src`, if there is one.
    ///
    /// Returns `Ok(None)` when more bytes are needed (it reserves room for
    /// the rest of a frame whose size is known). Call again after `Ok(Some)`:
    /// `src` may hold further frames. A negative size is reported as
    /// [`DecodeError::FrameTooLarge`] with the size read as unsigned.
    pub fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, DecodeError> {
        let size = match self.pending {
            Some(size) => size,
            None => {
                if src.len() < FRAME_HEADER_SIZE {
                    return Ok(None);
                }
                let raw = i32::from_be_bytes([src[0], src[1], src[2], src[3]]);
                let size = raw as u32 as usize;
                if raw < 0 || size > self.max_frame_size {
                    return Err(DecodeError::FrameTooLarge {
                        size,
                        max: self.max_frame_size,
                    });
                }
                let _ = src.split_to(FRAME_HEADER_SIZE);
                self.pending = Some(size);
                size
            }
        };
        if src.len() < size {
            src.reserve(size - src.len());
            return Ok(None);
        }
        self.pending = None;
        Ok(Some(src.split_to(size).freeze()))
    }
}

/// The 4-byte size prefix of a `payload_len`-byte frame.
///
/// # Panics
/// If `payload_len` exceeds `i32::MAX`, which no Kafka frame can.
pub fn frame_header(payload_len: usize) -> [u8; FRAME_HEADER_SIZE] {
    match i32::try_from(payload_len) {
        Ok(n) => n.to_be_bytes(),
        Err(_) => panic!("frame payload of {payload_len} bytes exceeds i32::MAX"),
    }
}

/// Writes the size prefix of a `payload_len`-byte frame; the caller writes
/// the payload next.
///
/// # Panics
/// If `payload_len` exceeds `i32::MAX`.
pub fn encode_frame_header<B: BufMut>(dst: &mut B, payload_len: usize) {
    dst.put_slice(&frame_header(payload_len));
}

/// Writes `payload` as one frame: size prefix, then the bytes.
///
/// # Panics
/// If `payload` is longer than `i32::MAX` bytes.
pub fn encode_frame<B: BufMut>(dst: &mut B, payload: &[u8]) {
    encode_frame_header(dst, payload.len());
    dst.put_slice(payload);
}

/// Writes one frame whose payload is produced by `write`, without knowing its
/// size in advance: reserves the prefix, runs `write` on `dst`, then patches
/// the size in. If `write` fails, `dst` is restored to its previous length.
///
/// # Panics
/// If the payload is longer than `i32::MAX` bytes.
pub fn encode_frame_with<E>(
    dst: &mut BytesMut,
    write: impl FnOnce(&mut BytesMut) -> Result<(), E>,
) -> Result<(), E> {
    let start = dst.len();
    dst.put_slice(&[0; FRAME_HEADER_SIZE]);
    if let Err(e) = write(dst) {
        dst.truncate(start);
        return Err(e);
    }
    let payload_len = dst.len() - start - FRAME_HEADER_SIZE;
    dst[start..start + FRAME_HEADER_SIZE].copy_from_slice(&frame_header(payload_len));
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn framed(payloads: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for p in payloads {
            encode_frame(&mut out, p);
        }
        out
    }

    #[test]
    fn encodes_size_prefix() {
        let mut out = Vec::new();
        encode_frame(&mut out, b"abc");
        assert_eq!(out, [0, 0, 0, 3, b'a', b'b', b'c']);
        assert_eq!(frame_header(0x0102_0304), [1, 2, 3, 4]);
        let mut out = BytesMut::new();
        encode_frame_header(&mut out, 29);
        assert_eq!(&out[..], &[0, 0, 0, 0x1d]);
    }

    #[test]
    fn encode_with_patches_size_and_rolls_back() {
        let mut out = BytesMut::from(&b"xy"[..]);
        encode_frame_with(&mut out, |b| {
            b.put_slice(b"hello");
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(&out[..], b"xy\0\0\0\x05hello");
        let r = encode_frame_with(&mut out, |b| {
            b.put_slice(b"partial");
            Err("boom")
        });
        assert_eq!(r, Err("boom"));
        assert_eq!(&out[..], b"xy\0\0\0\x05hello");
    }

    #[test]
    fn decodes_several_frames_in_one_buffer() {
        let mut buf = BytesMut::from(&framed(&[b"one", b"", b"three"])[..]);
        let mut d = FrameDecoder::new(100);
        assert_eq!(d.decode(&mut buf).unwrap().unwrap(), &b"one"[..]);
        assert_eq!(d.decode(&mut buf).unwrap().unwrap(), &b""[..]);
        assert_eq!(d.decode(&mut buf).unwrap().unwrap(), &b"three"[..]);
        assert_eq!(d.decode(&mut buf).unwrap(), None);
        assert!(buf.is_empty());
    }

    #[test]
    fn split_reads_at_every_boundary() {
        let wire = framed(&[b"first frame", b"second", b"3"]);
        for chunk in 1..=wire.len() {
            let mut d = FrameDecoder::new(64);
            let mut buf = BytesMut::new();
            let mut got = Vec::new();
            for piece in wire.chunks(chunk) {
                buf.extend_from_slice(piece);
                while let Some(frame) = d.decode(&mut buf).unwrap() {
                    got.push(frame);
                }
            }
            assert_eq!(got, [&b"first frame"[..], b"second", b"3"], "chunk {chunk}");
            assert!(!d.is_mid_frame());
            assert!(buf.is_empty());
        }
    }

    #[test]
    fn byte_by_byte_reports_mid_frame() {
        let wire = framed(&[b"abcdef"]);
        let mut d = FrameDecoder::new(64);
        let mut buf = BytesMut::new();
        for (i, b) in wire.iter().enumerate() {
            buf.extend_from_slice(&[*b]);
            let r = d.decode(&mut buf).unwrap();
            if i + 1 < wire.len() {
                assert_eq!(r, None);
                assert_eq!(d.is_mid_frame(), i >= 3);
            } else {
                assert_eq!(r.unwrap(), &b"abcdef"[..]);
            }
        }
    }

    #[test]
    fn oversized_frame_rejected_before_payload() {
        let mut d = FrameDecoder::new(10);
        let mut buf = BytesMut::from(&[0u8, 0, 0, 11][..]);
        assert_eq!(
            d.decode(&mut buf),
            Err(DecodeError::FrameTooLarge { size: 11, max: 10 })
        );
        // exactly the maximum is fine
        let mut buf = BytesMut::from(&framed(&[&[7u8; 10]])[..]);
        assert_eq!(d.decode(&mut buf).unwrap().unwrap().len(), 10);
        // a huge size does not make the decoder reserve memory
        let mut buf = BytesMut::from(&[0x7fu8, 0xff, 0xff, 0xff][..]);
        assert!(matches!(
            d.decode(&mut buf),
            Err(DecodeError::FrameTooLarge { .. })
        ));
        assert!(buf.capacity() < 1024);
    }

    #[test]
    fn negative_size_rejected() {
        let mut d = FrameDecoder::new(DEFAULT_MAX_FRAME_SIZE);
        let mut buf = BytesMut::from(&[0xffu8, 0xff, 0xff, 0xff, 0][..]);
        assert_eq!(
            d.decode(&mut buf),
            Err(DecodeError::FrameTooLarge {
                size: u32::MAX as usize,
                max: DEFAULT_MAX_FRAME_SIZE
            })
        );
    }
}
