//! Reading commits in-process (gix): trees, diffs, patch ids, the evidence of an iteration.
