//! Failure fingerprints: parse runner output into failures, normalise them, and hash the
//! set into a signature that identifies *a failure*, not a log.
