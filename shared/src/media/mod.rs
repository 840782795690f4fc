//! The media engines (docs/media.md): the transcoder port (`engine`), reading a file's
//! streams (`probe`, ffprobe), the rendition ladder (`ladder`, pure), the local engine
//! (`local`, ffmpeg with the arguments of `ffmpeg`) and the AWS engine (`mediaconvert`).
//! An adapter layer like `blobs/`: the rules and the delivery engine never reach it.

pub mod engine;
pub mod ffmpeg;
pub mod ladder;
pub mod local;
pub mod mediaconvert;
pub mod probe;
