//! The runners: `runners!` (in `fingerprint/mod.rs`) lists each runner once, with the
//! module that declares its [`Descriptor`] and the parser that reads its text output; the
//! [`Runner`] enum and the parser table ([`super::parsers`]) are generated from that list.
//!
//! A runner is its module (its `RUNNER` descriptor, its `TRIGGERS` and its parser, with its
//! tests), its fixtures under `tests/fixtures/logs/<runner>/`, and its line in `runners!`.

use super::Runner;

/// Everything the rest of loopguard knows about one runner, declared in its module.
#[derive(Debug)]
pub struct Descriptor {
    /// Its name in every document (`runner` in `fingerprint --json`, the run's evidence)
    /// and on the command line.
    pub name: &'static str,
}

/// Declares the runners and the text parsers, in the order of the list.
///
/// Each runner: its doc comment, its variant, the module that declares its `RUNNER`
/// (declared here), and the type of the parser in that module that reads its text
/// output, which also declares the parser's `TRIGGERS` (none for a runner read from XML
/// reports only). After the `;`, the parsers whose failures are another runner's (their
/// modules and types). A line goes to the parsers in the list's order; [`Runner::ALL`]'s
/// order is the list's too (a tie between runners goes to the first, see
/// [`super::Fingerprint::runner`]).
macro_rules! runners {
    (
        $($(#[$doc:meta])* $variant:ident => $module:ident $(: $parser:ident)?,)+
        ;
        $($other:ident: $other_parser:ident,)*
    ) => {
        $(mod $module;)+
        $(mod $other;)*

        /// The tool whose output a failure was recognised in (docs/contract.md,
        /// `fingerprint --json`): one per line of `runners!`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Runner {
            $($(#[$doc])* $variant,)+
        }

        impl Runner {
            /// Every runner, in the order of `runners!`.
            pub const ALL: &'static [Runner] = &[$(Runner::$variant,)+];

            /// The runner's descriptor, declared in its module.
            pub fn descriptor(self) -> &'static runner::Descriptor {
                match self {
                    $(Runner::$variant => &$module::RUNNER,)+
                }
            }
        }

        /// The state of every text parser: one field per parser, named after its module.
        #[derive(Default)]
        struct Table {
            $($($module: $module::$parser,)?)+
            $($other: $other::$other_parser,)*
        }

        /// Each parser's triggers, in table order.
        const TRIGGER_LISTS: &[&[&str]] = &[
            $($(runner::with_parser!($parser => $module::TRIGGERS),)?)+
            $($other::TRIGGERS,)*
        ];

        /// How many text parsers there are.
        const PARSERS: usize = TRIGGER_LISTS.len();

        impl Table {
            /// The parser at index `i` (a line goes to a few: no array of all of them is
            /// built for it).
            fn get(&mut self, i: usize) -> &mut dyn collect::LineParser {
                const GET: [fn(&mut Table) -> &mut dyn collect::LineParser; PARSERS] = [
                    $($(runner::with_parser!($parser => |t| &mut t.$module),)?)+
                    $(|t| &mut t.$other,)*
                ];
                GET[i](self)
            }

            fn get_ref(&self, i: usize) -> &dyn collect::LineParser {
                const GET: [fn(&Table) -> &dyn collect::LineParser; PARSERS] = [
                    $($(runner::with_parser!($parser => |t| &t.$module),)?)+
                    $(|t| &t.$other,)*
                ];
                GET[i](self)
            }
        }
    };
}

/// `$body`, for a runner that has a text parser (`runners!` repeats it once per parser).
macro_rules! with_parser {
    ($parser:ident => $($body:tt)*) => {
        $($body)*
    };
}

pub(super) use {runners, with_parser};

crate::names::named!(Runner, "runner");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runner_round_trips_through_its_name() {
        for &r in Runner::ALL {
            assert_eq!(r.to_string().parse::<Runner>().unwrap(), r);
            let json = serde_json::to_value(r).unwrap();
            assert_eq!(json, serde_json::Value::String(r.to_string()));
            assert_eq!(serde_json::from_value::<Runner>(json).unwrap(), r);
        }
        let err = "spec".parse::<Runner>().unwrap_err();
        assert!(err.to_string().contains("\"spec\""));
        assert!(err.to_string().contains("cargo, nextest"), "{err}");
        for r in Runner::ALL {
            assert!(err.to_string().contains(r.as_str()), "{err}");
        }
        assert!(serde_json::from_str::<Runner>("\"spec\"").is_err());
    }

    #[test]
    fn runner_names_are_distinct_lowercase_words() {
        for (i, r) in Runner::ALL.iter().enumerate() {
            let name = r.as_str();
            assert!(
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase()),
                "{name:?}"
            );
            assert!(
                Runner::ALL[..i].iter().all(|q| q.as_str() != name),
                "{name} twice"
            );
        }
    }
}
