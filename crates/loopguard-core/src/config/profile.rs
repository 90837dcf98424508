//! Profiles: named sets of defaults. `strict` allows more attempts before tripping, `yolo`
//! fewer; `balanced` is the default. Explicit keys in `.loopguard.yml` override the profile.

use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    Strict,
    #[default]
    Balanced,
    Yolo,
}

impl Profile {
    pub const ALL: [Profile; 3] = [Profile::Strict, Profile::Balanced, Profile::Yolo];

    /// The attempts the rules look back over (`window`). Each rule's own defaults are in
    /// its file (`rules/<rule>.rs`).
    pub fn window(self) -> u32 {
        match self {
            Profile::Strict => 15,
            Profile::Balanced => 10,
            Profile::Yolo => 8,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Strict => "strict",
            Profile::Balanced => "balanced",
            Profile::Yolo => "yolo",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Profile {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "strict" => Ok(Profile::Strict),
            "balanced" => Ok(Profile::Balanced),
            "yolo" => Ok(Profile::Yolo),
            other => Err(format!(
                "unknown profile `{other}`, expected one of strict, balanced, yolo"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        for p in Profile::ALL {
            assert_eq!(p.as_str().parse::<Profile>().unwrap(), p);
        }
        assert!("lenient".parse::<Profile>().is_err());
    }
}
