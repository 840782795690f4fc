//! The media engines (docs/media.md): reading a file's streams (`probe`, ffprobe), the
//! rendition ladder (`ladder`, pure) and the local transcoder's ffmpeg arguments
//! (`ffmpeg`). An adapter layer like `blobs/`: the rules and the engine never reach it.

pub mod ffmpeg;
pub mod ladder;
pub mod probe;
