//! The media engines (docs/media.md): the transcoder port (`engine`), reading a file's
//! streams (`probe`, ffprobe), the rendition ladder (`ladder`, pure), the local engine
//! (`local`, ffmpeg with the arguments of `ffmpeg`) and the AWS engine (`mediaconvert`, its
//! job events in `job_events`).
//! An adapter layer like `blobs/`: the rules and the delivery engine never reach it.

pub mod engine;
pub mod ffmpeg;
pub mod job_events;
pub mod ladder;
pub mod local;
#[cfg(feature = "mediaconvert")]
pub mod mediaconvert;
pub mod probe;
