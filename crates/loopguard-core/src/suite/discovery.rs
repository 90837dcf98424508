//! Which files hold tests, by each ecosystem's own discovery rules (docs/rules.md, "What a
//! test is"), and which only serve them (fixtures, snapshots, mock data, helpers).
//!
//! One row per ecosystem in [`test_file_lang`]; the directories that hold test inputs rather
//! than tests in [`SUPPORT_DIRS`]. Paths are `/`-separated, as git gives them.

use super::Lang;

/// What a path is to the tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A file the ecosystem's runner collects tests from, in this language.
    Tests(Lang),
    /// A file that serves the tests without being one: fixtures, snapshots, mock data,
    /// samples, helpers, `conftest.py`, test projects' assets.
    Support,
}

/// Directories whose files are test inputs, whatever their names: a `*.spec.ts` under
/// `fixtures/` is a fixture of a test runner's own tests, not a test the project runs.
const SUPPORT_DIRS: &[&str] = &[
    "fixtures",
    "fixture",
    "__fixtures__",
    "testdata",
    "test-data",
    "test_data",
    "testassets",
    "test-assets",
    "__snapshots__",
    "snapshots",
    "__screenshots__",
    "__mocks__",
    "mocks",
    "golden",
    "goldens",
    "samples",
];

/// Directories that hold a project's tests (their other files are support).
fn is_test_dir(dir: &str) -> bool {
    matches!(
        dir,
        "test" | "tests" | "spec" | "specs" | "__tests__" | "e2e" | "testing" | "Tests" | "Test"
    ) || is_dotnet_test_project(dir)
}

/// A .NET test project's directory: `Foo.Tests`, `Foo.UnitTests`, `UnitTests`,
/// `Foo.Test`, `Foo.Specs` (the conventions `dotnet new` and the big repositories use).
fn is_dotnet_test_project(dir: &str) -> bool {
    ["Tests", "Test", "Specs"]
        .iter()
        .any(|s| dir.len() > s.len() && dir.ends_with(s))
}

/// The role of `path`, by the discovery rules; `None` for everything else.
pub fn role(path: &str) -> Option<Role> {
    let (dirs, name) = match path.rsplit_once('/') {
        Some((dirs, name)) => (dirs, name),
        None => ("", path),
    };
    let dirs: Vec<&str> = dirs.split('/').filter(|d| !d.is_empty()).collect();
    if dirs
        .iter()
        .any(|d| SUPPORT_DIRS.iter().any(|s| d.eq_ignore_ascii_case(s)))
    {
        return Some(Role::Support);
    }
    if let Some(lang) = test_file_lang(&dirs, name) {
        return Some(Role::Tests(lang));
    }
    let under_tests = dirs.iter().any(|d| is_test_dir(d))
        || dirs
            .windows(2)
            .any(|w| w[0] == "src" && w[1].ends_with("test"))
        || dirs
            .windows(2)
            .any(|w| w[0] == "src" && w[1].ends_with("Test"));
    under_tests.then_some(Role::Support)
}

/// The language of a file the ecosystem's runner collects tests from.
fn test_file_lang(dirs: &[&str], name: &str) -> Option<Lang> {
    let lang = Lang::of(name)?;
    let (stem, ext) = name.rsplit_once('.')?;
    let in_dir = |pred: &dyn Fn(&str) -> bool| dirs.iter().any(|d| pred(d));
    let collected = match lang {
        // pytest's `python_files` (`test_*.py`, `*_test.py`), and Django's `tests.py`.
        Lang::Python => {
            ext == "py"
                && (stem.starts_with("test_")
                    || stem.ends_with("_test")
                    || stem == "tests"
                    || stem == "test")
        }
        // `go test`: `*_test.go`.
        Lang::Go => stem.ends_with("_test"),
        // jest (`__tests__/**`, `*.test.*`, `*.spec.*`), vitest (also `*.test-d.*`), mocha
        // (the files directly in `test/`).
        Lang::Js => {
            let inner = stem.rsplit_once('.').map(|(_, k)| k);
            matches!(inner, Some("test" | "spec" | "test-d" | "spec-d"))
                || in_dir(&|d| d == "__tests__")
                || (dirs.last() == Some(&"test") && matches!(ext, "js" | "cjs" | "mjs" | "ts"))
        }
        // cargo: the integration tests under a crate's `tests/` (unit tests live in any
        // `.rs` file: see `bears_tests`).
        Lang::Rust => in_dir(&|d| d == "tests"),
        // Maven and Gradle: the test source sets (`src/test/…`, `src/integrationTest/…`),
        // and surefire's names (`Test*`, `*Test`, `*Tests`, `*TestCase`) under a test dir.
        Lang::Jvm => {
            dirs.windows(2)
                .any(|w| w[0] == "src" && (w[1] == "test" || w[1].ends_with("Test")))
                || ((stem.starts_with("Test")
                    || stem.ends_with("Test")
                    || stem.ends_with("Tests")
                    || stem.ends_with("TestCase")
                    || stem.ends_with("Spec"))
                    && in_dir(&is_test_dir))
        }
        // A test project (`*.Tests`, `UnitTests`, …) or the repository's `test/` tree.
        Lang::DotNet => in_dir(&is_test_dir),
        // RSpec (`*_spec.rb`), minitest (`*_test.rb`, `test_*.rb`).
        Lang::Ruby => {
            stem.ends_with("_spec") || stem.ends_with("_test") || stem.starts_with("test_")
        }
        // PHPUnit's default suffix.
        Lang::Php => stem.ends_with("Test"),
        // ExUnit.
        Lang::Elixir => ext == "exs" && stem.ends_with("_test"),
        // GoogleTest and Catch2 conventions.
        Lang::Cpp => {
            stem.ends_with("_test")
                || stem.ends_with("_unittest")
                || stem.ends_with("_tests")
                || stem.starts_with("test_")
        }
        // XCTest and swift-testing targets: `Tests/<Target>Tests/…`.
        Lang::Swift => in_dir(&|d| d == "Tests" || d.ends_with("Tests")),
        // `dart test`.
        Lang::Dart => stem.ends_with("_test"),
    };
    collected.then_some(lang)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_ecosystem_by_its_own_rules() {
        use Lang::*;
        let tests: &[(&str, Lang)] = &[
            ("tests/test_app.py", Python),
            ("src/flask/testing/test_x.py", Python),
            ("pkg/store_test.py", Python),
            ("myapp/tests.py", Python),
            ("pkg/cmd/root_test.go", Go),
            ("src/a.test.ts", Js),
            ("src/a.spec.jsx", Js),
            ("packages/x/__tests__/util.js", Js),
            ("test/core/types.test-d.ts", Js),
            ("test/api.js", Js),
            ("tests/cli.rs", Rust),
            ("crates/x/tests/it/main.rs", Rust),
            ("src/test/java/org/x/FooTest.java", Jvm),
            ("app/src/androidTest/kotlin/x/Ui.kt", Jvm),
            (
                "test/UnitTests/MSTest.Core.Unit.Tests/Attributes/DataRowTests.cs",
                DotNet,
            ),
            ("src/Foo.Tests/BarTests.fs", DotNet),
            ("spec/models/user_spec.rb", Ruby),
            ("test/models/user_test.rb", Ruby),
            ("tests/Unit/RouterTest.php", Php),
            ("test/my_app/router_test.exs", Elixir),
            ("src/base/strings_unittest.cc", Cpp),
            ("Tests/CoreTests/ParserTests.swift", Swift),
            ("test/widget_test.dart", Dart),
        ];
        for (path, lang) in tests {
            assert_eq!(role(path), Some(Role::Tests(*lang)), "{path}");
        }
    }

    #[test]
    fn fixtures_snapshots_data_and_helpers_are_not_tests() {
        let support = [
            "tests/fixtures/conversations/v1/base_state.json",
            "test/cli/fixtures/reporters/flaky/math.spec.ts",
            "test/e2e/test/__snapshots__/benchmarking.test.ts.snap",
            "tests/snapshots/output/tabs_4.snapshot.txt",
            "pkg/parser/testdata/input_test.go",
            "test/browser/test/__screenshots__/dom.test.ts/div-1.png",
            "tests/conftest.py",
            "tests/__init__.py",
            "tests/unit/tool/__init__.py",
            "tests/examples/cycle.txt",
            "tests/benchmarks/comparison.sh",
            "test/IntegrationTests/TestAssets/SuiteLifeCycleTestProject/LifeCycle.cs",
            "src/test/resources/app.properties",
            "packages/ui/__mocks__/fs.ts",
            "tests/common/mod.txt",
        ];
        for path in support {
            assert_eq!(role(path), Some(Role::Support), "{path}");
        }
    }

    #[test]
    fn names_match_within_one_directory_only() {
        // `**/test_*.py` matched across directories: `test_apps/…/b.py` is not a test.
        let none = [
            "src/test_utils/helpers/b.py",
            "flask/test_apps/blueprintapp/apps/__init__.py",
            "src/app.py",
            "src/testing.py",
            "src/lib.rs",
            "src/Foo/Bar.cs",
            "src/TestFramework/TestFramework/Assert.cs",
            "docs/test.md",
            "README.md",
            "src/main/java/org/x/TestUtil.java",
        ];
        for path in none {
            assert_eq!(role(path), None, "{path}");
        }
        assert_eq!(
            role("flask/testsuite/test_apps/flask_broken/b.py"),
            None,
            "a test app is code the tests import, not a test"
        );
    }
}
