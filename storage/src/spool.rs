//! `spooled`: an object read whole for a render without holding it in the heap. Up to `IN_MEMORY_AT_MOST`
//! it is collected in memory; past that, what arrived and the rest are written to an unnamed temporary file
//! (gone with its last handle, even after a crash) which is mapped: the decoder then reads the page cache,
//! and only the pages it touches are resident, so a large original — or a 1×1 PNG padded with a gigabyte —
//! costs the process what is read of it, not its size.

use std::io::{self, Write};

use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;

use crate::ByteStream;

/// The largest object collected in memory: below it a file's set-up costs more than the copy.
const IN_MEMORY_AT_MOST: usize = 8 << 20;

/// Every byte of `stream`, in memory or mapped from a temporary file (module documentation).
pub(crate) async fn spooled(mut stream: ByteStream) -> io::Result<Bytes> {
    let mut head = BytesMut::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        if head.len() + chunk.len() > IN_MEMORY_AT_MOST {
            return to_file(head.freeze(), chunk, stream).await;
        }
        head.extend_from_slice(&chunk);
    }
    Ok(head.freeze())
}

async fn to_file(head: Bytes, chunk: Bytes, mut stream: ByteStream) -> io::Result<Bytes> {
    let mut file = tokio::task::spawn_blocking(tempfile::tempfile).await.map_err(io::Error::other)??;
    let mut batch = vec![head, chunk];
    loop {
        // Written in batches of a few MiB on the blocking pool: one trip each, not one per network chunk.
        let (mut len, mut ended) = (0, false);
        while len < IN_MEMORY_AT_MOST {
            let Some(next) = stream.next().await else {
                ended = true;
                break;
            };
            let next = next?;
            len += next.len();
            batch.push(next);
        }
        let written = std::mem::take(&mut batch);
        file = tokio::task::spawn_blocking(move || {
            written.iter().try_for_each(|piece| file.write_all(piece))?;
            Ok::<_, io::Error>(file)
        })
        .await
        .map_err(io::Error::other)??;
        if ended {
            return tokio::task::spawn_blocking(move || map(&file)).await.map_err(io::Error::other)?;
        }
    }
}

fn map(file: &std::fs::File) -> io::Result<Bytes> {
    // SAFETY: the file is unnamed and this process's alone; nothing writes or truncates it once mapped.
    let map = unsafe { memmap2::MmapOptions::new().map(file)? };
    Ok(Bytes::from_owner(map))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream_of(chunks: Vec<Bytes>) -> ByteStream {
        futures_util::stream::iter(chunks.into_iter().map(Ok)).boxed()
    }

    #[tokio::test]
    async fn small_objects_stay_in_memory_and_large_ones_are_mapped_whole() {
        let small: Vec<Bytes> = (0..4u8).map(|i| Bytes::from(vec![i; 1000])).collect();
        assert_eq!(spooled(stream_of(small.clone())).await.unwrap(), small.concat());
        // 20 MiB in 64 KiB chunks of changing bytes: every byte in its place after the file.
        let large: Vec<Bytes> = (0..320u32).map(|i| Bytes::from(vec![(i % 251) as u8; 64 << 10])).collect();
        assert_eq!(spooled(stream_of(large.clone())).await.unwrap(), large.concat());
        assert_eq!(spooled(stream_of(Vec::new())).await.unwrap(), Bytes::new());
    }
}
