//! Each language's tests as its runner sees them, and the false positives too: what looks
//! like a skip and isn't (a comment, a string, `skipif(False)`, a helper method).

use super::*;
use TakenHow::*;

/// (name, how it is taken out, whether on a condition) for each test `text` declares.
fn read(lang: Lang, text: &str) -> Vec<(String, Option<(TakenHow, bool)>)> {
    parse(lang, text)
        .tests
        .into_iter()
        .map(|t| (t.name, t.off.map(|o| (o.how, o.condition.is_some()))))
        .collect()
}

fn active(name: &str) -> (String, Option<(TakenHow, bool)>) {
    (name.to_owned(), None)
}

fn off(name: &str, how: TakenHow, conditional: bool) -> (String, Option<(TakenHow, bool)>) {
    (name.to_owned(), Some((how, conditional)))
}

/// A pytest and unittest module with a test of each kind.
const PYTHON: &str = r#"
import pytest, sys

def helper():
    return 1

def test_plain():
    """Checks.

    More."""
    assert helper() == 1

@pytest.mark.skip(reason="later")
def test_skipped():
    assert False

@pytest.mark.skipif(True, reason="off")
def test_skipif_true():
    pass

@pytest.mark.skipif(
    sys.platform == "win32",
    reason="posix only",
)
def test_posix():
    pass

@pytest.mark.skipif(False, reason="never")
def test_skipif_false():
    pass

@pytest.mark.xfail
def test_xfail():
    assert False

@pytest.mark.xfail(sys.version_info < (3, 12), reason="old")
def test_xfail_old():
    pass

@pytest.mark.xfail(reason="known", strict=True)
def test_xfail_reason():
    pass

def test_early():
    return
    assert False

def test_skip_call():
    pytest.skip("not now")

def test_skip_in_if():
    if shutil.which("bash") is None:
        pytest.skip("bash not found in PATH")
    assert run()

async def test_async():
    # pytest.skip("commented")
    assert "pytest.skip(" in text

class TestThing:
    def test_method(self):
        assert True

    def setup_method(self):
        pass

@pytest.mark.skip
class TestSkippedClass:
    def test_inside(self):
        pass

class Helper:
    def test_not_collected(self):
        pass

class TestUnit(unittest.TestCase):
    @unittest.skipIf(os.name == "nt", "posix")
    def test_posix_unit(self):
        pass

    @unittest.expectedFailure
    def test_expected(self):
        self.fail()

    def test_skip_test(self):
        self.skipTest("later")
"#;

#[test]
fn pytest_and_unittest() {
    let text = PYTHON;
    assert_eq!(
        read(Lang::Python, text),
        [
            active("test_plain"),
            off("test_skipped", Skipped, false),
            off("test_skipif_true", Skipped, false),
            off("test_posix", Skipped, true),
            active("test_skipif_false"),
            off("test_xfail", ExpectedFailure, false),
            off("test_xfail_old", ExpectedFailure, true),
            off("test_xfail_reason", ExpectedFailure, false),
            off("test_early", EarlyReturn, false),
            off("test_skip_call", Skipped, false),
            off("test_skip_in_if", Skipped, true),
            active("test_async"),
            active("test_method"),
            off("test_inside", Skipped, false),
            off("test_posix_unit", Skipped, true),
            off("test_expected", ExpectedFailure, false),
            off("test_skip_test", Skipped, false),
        ]
    );
    let p = parse(Lang::Python, text);
    assert!(p.defs.contains(&"helper".to_owned()));
    assert!(p.defs.contains(&"test_not_collected".to_owned()));
}

#[test]
fn a_module_pytestmark_takes_all_its_tests_out() {
    let module =
        "import pytest\npytestmark = pytest.mark.skip(reason='wip')\n\ndef test_a():\n    pass\n";
    assert_eq!(read(Lang::Python, module), [off("test_a", Skipped, false)]);
}

#[test]
fn go_test() {
    let text = "//go:build linux\n\npackage x\n";
    assert_eq!(
        read(Lang::Go, &format!("{text}func TestA(t *testing.T) {{}}\n")),
        [off("TestA", Disabled, true)]
    );
    let text = r#"package x

func helper() int { return 1 }

func TestPlain(t *testing.T) {
	if helper() != 1 {
		t.Fatal("x")
	}
}

func TestSkipped(t *testing.T) {
	t.Skip("flaky")
}

func TestShort(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
}

func TestEarly(t *testing.T) {
	return
	t.Fatal("x")
}

func Testing(t *testing.T) {}

func (s *Suite) TestMethod() {
	s.Equal(1, 1)
}

func FuzzParse(f *testing.F) {}
"#;
    assert_eq!(
        read(Lang::Go, text),
        [
            active("TestPlain"),
            off("TestSkipped", Skipped, false),
            off("TestShort", Skipped, true),
            off("TestEarly", EarlyReturn, false),
            active("TestMethod"),
            active("FuzzParse"),
        ]
    );
    let p = parse(Lang::Go, text);
    assert!(p.defs.contains(&"helper".to_owned()));
    assert!(p.defs.contains(&"Testing".to_owned()), "{:?}", p.defs);
}

#[test]
fn cargo() {
    let text = r#"
#![cfg(feature = "net")]
"#;
    assert_eq!(
        read(Lang::Rust, &format!("{text}#[test]\nfn a() {{}}\n")),
        [off("a", Disabled, true)]
    );
    let text = r#"
pub fn add(a: u8, b: u8) -> u8 { a + b }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
    }

    #[test]
    #[ignore = "slow"]
    fn slow() {}

    #[test]
    #[cfg_attr(windows, ignore)]
    fn posix() {}

    #[tokio::test]
    async fn early() {
        return;
    }

    #[cfg(any())]
    #[test]
    fn never() {}

    #[test]
    #[should_panic]
    fn panics() {
        let c = '}';
        panic!("{c}");
    }
}

#[cfg(any())]
mod off {
    #[test]
    fn inside() {}
}

#[rstest]
#[case(1)]
fn cases(#[case] n: u8) {}

rgtest!(by_macro, |dir: Dir, mut cmd: TestCommand| {
    eqnice!("x", cmd.stdout());
});

rgtest!(
    by_macro_as_rustfmt_writes_a_long_one,
    |dir: Dir, mut cmd: TestCommand| {
        eqnice!("x", cmd.stdout());
    }
);
"#;
    assert_eq!(
        read(Lang::Rust, text),
        [
            active("adds"),
            off("slow", Skipped, false),
            off("posix", Skipped, true),
            off("early", EarlyReturn, false),
            off("never", Disabled, false),
            active("panics"),
            off("inside", Disabled, false),
            active("cases"),
            active("by_macro"),
            active("by_macro_as_rustfmt_writes_a_long_one"),
        ]
    );
    assert!(parse(Lang::Rust, text).defs.contains(&"add".to_owned()));
}

#[test]
fn a_rust_file_without_the_test_markers_declares_no_test() {
    // Every form of a Rust test holds `test` or `quickcheck`: a file with neither is not
    // read (`may_declare_tests`), and reading it would find no test either.
    for form in [
        "#[test]\nfn a() {}\n",
        "#[tokio::test]\nasync fn a() {}\n",
        "#[rstest]\nfn a() {}\n",
        "#[test_case(1)]\nfn a(n: u8) {}\n",
        "#[wasm_bindgen_test]\nfn a() {}\n",
        "#[quickcheck]\nfn a(x: u8) -> bool { true }\n",
        "#[proptest]\nfn a(x: u8) {}\n",
        "rgtest!(a, |dir: Dir, mut cmd: TestCommand| {});\n",
        "proptest! { fn a(x: u8) {} }\n",
    ] {
        assert_eq!(read(Lang::Rust, form), [active("a")], "{form}");
        assert!(may_declare_tests(Lang::Rust, form), "{form}");
        let hidden = form
            .replace("test", "tset")
            .replace("quickcheck", "quickchek");
        assert!(!may_declare_tests(Lang::Rust, &hidden), "{hidden}");
        assert_eq!(read(Lang::Rust, &hidden), [], "{hidden}");
    }
}

#[test]
fn junit_and_testng() {
    let text = r#"
package x;

class ParserTest {
    @Test
    void parses() {
        assertEquals(1, parse("1"));
    }

    @Test
    @Disabled("https://github.com/acme/x/issues/12")
    void quarantined() {}

    @Test
    @DisabledOnOs(OS.WINDOWS)
    void posix() {}

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void each(int n) {
        assumeTrue(n > 0);
    }

    @Test fun `reads a file`() {
        return
    }

    private int helper(String s) {
        return 1;
    }

    public void testLegacy() {}
}

@Disabled
class OffTest {
    @Test
    void inside() {}
}
"#;
    assert_eq!(
        read(Lang::Jvm, text),
        [
            active("parses"),
            off("quarantined", Skipped, false),
            off("posix", Skipped, true),
            off("each", Skipped, true),
            off("reads a file", EarlyReturn, false),
            active("testLegacy"),
            off("inside", Skipped, false),
        ]
    );
    assert!(parse(Lang::Jvm, text).defs.contains(&"helper".to_owned()));
}

#[test]
fn xunit_nunit_mstest() {
    let text = r#"
namespace X
{
    public class ParserTests
    {
        [Fact]
        public void Parses()
        {
            Assert.Equal(1, Parse("1"));
        }

        [Fact(Skip = "flaky")]
        public void Skipped() { }

        [Theory]
        [InlineData(1)]
        public async Task Each(int n)
        {
            if (OperatingSystem.IsWindows())
            {
                Assert.Inconclusive("posix");
            }
        }

        [TestMethod]
        [Ignore]
        public void Ignored() { }

        [Test, Ignore("later")]
        public void NUnitIgnored() { }

        [TestMethod]
        [OSCondition(OperatingSystems.Windows)]
        public void WindowsOnly() { }

        [DataTestMethod]
        public void Early()
        {
            return;
        }

        private int Parse(string s) => 1;
    }

    [Ignore]
    [TestClass]
    public class OffTests
    {
        [TestMethod]
        public void Inside() { }
    }
}
"#;
    assert_eq!(
        read(Lang::DotNet, text),
        [
            active("Parses"),
            off("Skipped", Skipped, false),
            off("Each", Skipped, true),
            off("Ignored", Skipped, false),
            off("NUnitIgnored", Skipped, false),
            off("WindowsOnly", Skipped, true),
            off("Early", EarlyReturn, false),
            off("Inside", Skipped, false),
        ]
    );
    assert!(parse(Lang::DotNet, text).defs.contains(&"Parse".to_owned()));
}

#[test]
fn phpunit_gtest_catch2_xctest() {
    let php = r#"<?php
final class RouterTest extends TestCase
{
    public function testRoutes(): void
    {
        $this->assertTrue(true);
    }

    /** @test */
    public function it_matches(): void
    {
        $this->markTestSkipped('later');
    }

    #[Test]
    public function incomplete(): void
    {
        $this->markTestIncomplete();
    }

    private function helper(): int { return 1; }
}
"#;
    assert_eq!(
        read(Lang::Php, php),
        [
            active("testRoutes"),
            off("it_matches", Skipped, false),
            off("incomplete", Todo, false),
        ]
    );
    let cpp = r#"
TEST(Parser, Parses) {
  EXPECT_EQ(1, Parse("1"));
}

TEST_F(ParserFixture, DISABLED_Slow) {}

TEST(Parser, Skips) {
  GTEST_SKIP() << "later";
}

TEST_CASE("hidden", "[.][slow]") {}
TEST_CASE("shown", "[fast]") {}
"#;
    assert_eq!(
        read(Lang::Cpp, cpp),
        [
            active("Parser.Parses"),
            off("ParserFixture.Slow", Skipped, false),
            off("Parser.Skips", Skipped, false),
            off("hidden", Skipped, false),
            active("shown"),
        ]
    );
    let swift = r#"
final class ParserTests: XCTestCase {
    func testParses() throws {
        XCTAssertEqual(1, 1)
    }

    func testSkipped() throws {
        throw XCTSkip("later")
    }

    func testLinux() throws {
        try XCTSkipIf(isLinux, "mac only")
    }

    func helper() {}
}
"#;
    assert_eq!(
        read(Lang::Swift, swift),
        [
            active("testParses"),
            off("testSkipped", Skipped, false),
            off("testLinux", Skipped, true),
        ]
    );
}

#[test]
fn jest_vitest_mocha_node_dart() {
    let text = r#"
import { describe, it, test, expect } from 'vitest'

function helper() { return 1 }
const build = (x) => x

describe('parser', () => {
  it('parses', () => {
    expect(helper()).toBe(1)
  })

  it.skip('skipped', () => {})
  xit('x-skipped', () => {})
  it.todo('later')
  test.fails('fails', () => { throw new Error('x') })
  test.skipIf(process.platform === 'win32')('posix', () => {})
  test.runIf(false)('never runs', () => {})
  it.each([1, 2])('each %s', (n) => {})

  it('returns early', () => {
    return
    expect(1).toBe(2)
  })

  it('skips inside', (ctx) => {
    if (!process.env.CI) {
      ctx.skip()
    }
  })
})

describe.skip('off', () => {
  test('inside', () => {})
})

test('node option', { skip: true }, () => {})
test(`template`, async () => {
  const s = `it.skip('x', () => {})`
})
"#;
    assert_eq!(
        read(Lang::Js, text),
        [
            active("parses"),
            off("skipped", Skipped, false),
            off("x-skipped", Skipped, false),
            off("later", Todo, false),
            off("fails", ExpectedFailure, false),
            off("posix", Skipped, true),
            off("never runs", Skipped, false),
            active("each %s"),
            off("returns early", EarlyReturn, false),
            off("skips inside", Skipped, true),
            off("inside", Skipped, false),
            off("node option", Skipped, false),
            active("template"),
        ]
    );
    let p = parse(Lang::Js, text);
    assert_eq!(p.focus, None);
    assert!(p.defs.contains(&"helper".to_owned()) && p.defs.contains(&"build".to_owned()));
    let focused = parse(Lang::Js, "it.only('a', () => {})\nit('b', () => {})\n");
    let focus = focused.focus.unwrap();
    assert_eq!(
        (focus.line.as_str(), focus.condition),
        ("it.only('a', () => {})", None)
    );
    // A focus under a condition: the tests run elsewhere.
    let on_ci = "if (process.env.GITHUB_ACTIONS)\n  test.only('skip tests on CI', () => {})\n\ntest('quits', () => {})\n";
    let focus = parse(Lang::Js, on_ci).focus.unwrap();
    assert_eq!(
        focus.condition.as_deref(),
        Some("if (process.env.GITHUB_ACTIONS)")
    );

    let dart = "void main() {\n  test('adds', () {\n    expect(1, 1);\n  });\n  test('flaky', () {\n    expect(1, 2);\n  }, skip: 'issue 12');\n}\n";
    assert_eq!(
        read(Lang::Dart, dart),
        [active("adds"), off("flaky", Skipped, false)]
    );
}

#[test]
fn rspec_minitest_exunit() {
    let rspec = r#"
RSpec.describe Parser do
  it "parses" do
    expect(1).to eq(1)
  end

  xit "x-skipped" do
  end

  it "skipped by metadata", skip: "later" do
  end

  it "skips inside" do
    skip "no network" unless online?
    expect(fetch).to be_ok
  end

  it "pending" do
    pending "known bug"
    expect(1).to eq(2)
  end

  xdescribe "off" do
    it "inside" do
    end
  end

  def helper
  end
end
"#;
    assert_eq!(
        read(Lang::Ruby, rspec),
        [
            active("parses"),
            off("x-skipped", Skipped, false),
            off("skipped by metadata", Skipped, false),
            off("skips inside", Skipped, true),
            off("pending", ExpectedFailure, false),
            off("inside", Skipped, false),
        ]
    );
    let minitest = "class ParserTest < Minitest::Test\n  def test_parses\n    assert true\n  end\n\n  def test_skipped\n    skip\n  end\n\n  test \"rails style\" do\n    assert true\n  end\nend\n";
    assert_eq!(
        read(Lang::Ruby, minitest),
        [
            active("test_parses"),
            off("test_skipped", Skipped, false),
            active("rails style"),
        ]
    );
    let exunit = "defmodule ParserTest do\n  use ExUnit.Case\n\n  test \"parses\" do\n    assert 1 == 1\n  end\n\n  @tag :skip\n  test \"skipped\" do\n  end\n\n  @tag skip: \"flaky\"\n  test \"skipped with reason\", %{conn: conn} do\n  end\n\n  defp helper, do: 1\nend\n";
    assert_eq!(
        read(Lang::Elixir, exunit),
        [
            active("parses"),
            off("skipped", Skipped, false),
            off("skipped with reason", Skipped, false),
        ]
    );
}
