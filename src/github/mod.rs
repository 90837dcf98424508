//! The GitHub REST client used by `loopguard ci`.
