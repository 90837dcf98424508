//! Profiles: named threshold tables. `strict` allows more attempts before tripping, `yolo`
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

/// The defaults a profile gives. One row per knob; README.md shows this table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    pub window: u32,
    pub stagnation: u32,
    pub same_error: u32,
    pub oscillation: u32,
    pub repeated_patch: u32,
    pub false_completion: u32,
    pub test_only_ratio: f64,
    pub test_only_min_iterations: u32,
    pub budget_max_iterations: u32,
    pub edge_loop: u32,
    pub edge_loop_verifier: u32,
    pub max_steps: u32,
}

impl Profile {
    pub const ALL: [Profile; 3] = [Profile::Strict, Profile::Balanced, Profile::Yolo];

    pub fn thresholds(self) -> Thresholds {
        match self {
            Profile::Strict => Thresholds {
                window: 15,
                stagnation: 5,
                same_error: 5,
                oscillation: 3,
                repeated_patch: 3,
                false_completion: 3,
                test_only_ratio: 0.5,
                test_only_min_iterations: 5,
                budget_max_iterations: 100,
                edge_loop: 8,
                edge_loop_verifier: 5,
                max_steps: 200,
            },
            Profile::Balanced => Thresholds {
                window: 10,
                stagnation: 3,
                same_error: 3,
                oscillation: 2,
                repeated_patch: 2,
                false_completion: 2,
                test_only_ratio: 0.3,
                test_only_min_iterations: 3,
                budget_max_iterations: 50,
                edge_loop: 5,
                edge_loop_verifier: 3,
                max_steps: 100,
            },
            Profile::Yolo => Thresholds {
                window: 8,
                stagnation: 2,
                same_error: 2,
                oscillation: 2,
                repeated_patch: 1,
                false_completion: 1,
                test_only_ratio: 0.3,
                test_only_min_iterations: 3,
                budget_max_iterations: 25,
                edge_loop: 3,
                edge_loop_verifier: 2,
                max_steps: 50,
            },
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
    fn strict_allows_more_attempts_than_balanced_than_yolo() {
        let [s, b, y] = Profile::ALL.map(Profile::thresholds);
        for (name, pick) in [
            (
                "stagnation",
                (|t: &Thresholds| t.stagnation) as fn(&Thresholds) -> u32,
            ),
            ("same_error", |t| t.same_error),
            ("repeated_patch", |t| t.repeated_patch),
            ("false_completion", |t| t.false_completion),
            ("budget", |t| t.budget_max_iterations),
            ("edge_loop", |t| t.edge_loop),
        ] {
            assert!(pick(&s) > pick(&b), "{name}: strict > balanced");
            assert!(pick(&b) > pick(&y), "{name}: balanced > yolo");
        }
        // A single deliberate revert must pass in every profile.
        assert!(y.oscillation >= 2);
    }

    #[test]
    fn parses_and_prints() {
        for p in Profile::ALL {
            assert_eq!(p.as_str().parse::<Profile>().unwrap(), p);
        }
        assert!("lenient".parse::<Profile>().is_err());
    }
}
