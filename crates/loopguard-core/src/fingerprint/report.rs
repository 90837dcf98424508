//! XML test reports, recognised by their root element: JUnit (`<testsuites>`,
//! `<testsuite>`, any other root), TRX (`<TestRun>`), xUnit.net v2 (`<assemblies>`,
//! `<assembly>`) and NUnit 3 (`<test-run>`). One push tokenizer reads them all in bounded
//! memory; the first start tag decides which reader gets its events.

use super::dotnet_xml::{Dialect, DotnetXmlReport};
use super::junit::JunitReport;
use super::signature::Fingerprint;
use super::trx::TrxReport;
use super::xml::{XmlSink, XmlTokenizer};

#[derive(Debug, Default)]
pub(crate) struct ReportParser {
    tokenizer: XmlTokenizer,
    reader: Reader,
}

impl ReportParser {
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        self.tokenizer.feed(bytes, &mut self.reader);
    }

    pub(crate) fn finish(self) -> Fingerprint {
        match self.reader {
            Reader::Undecided => JunitReport::default().finish(),
            Reader::Junit(r) => r.finish(),
            Reader::Trx(r) => r.finish(),
            Reader::Dotnet(r) => r.finish(),
        }
    }
}

/// The reader the root element chose.
#[derive(Debug, Default)]
enum Reader {
    #[default]
    Undecided,
    Junit(Box<JunitReport>),
    Trx(Box<TrxReport>),
    Dotnet(Box<DotnetXmlReport>),
}

impl Reader {
    fn for_root(name: &str) -> Self {
        match name {
            "TestRun" => Reader::Trx(Box::default()),
            "assemblies" | "assembly" => {
                Reader::Dotnet(Box::new(DotnetXmlReport::new(Dialect::Xunit)))
            }
            "test-run" => Reader::Dotnet(Box::new(DotnetXmlReport::new(Dialect::Nunit))),
            _ => Reader::Junit(Box::default()),
        }
    }

    fn sink(&mut self) -> &mut dyn XmlSink {
        match self {
            Reader::Undecided => unreachable!("decided at the first start tag"),
            Reader::Junit(r) => r.as_mut(),
            Reader::Trx(r) => r.as_mut(),
            Reader::Dotnet(r) => r.as_mut(),
        }
    }
}

impl XmlSink for Reader {
    fn start(&mut self, name: &str, attrs: &[(String, String)], self_closing: bool) {
        if matches!(self, Reader::Undecided) {
            *self = Reader::for_root(name);
        }
        self.sink().start(name, attrs, self_closing);
    }

    fn end(&mut self, name: &str) {
        if !matches!(self, Reader::Undecided) {
            self.sink().end(name);
        }
    }

    fn text(&mut self, bytes: &[u8]) {
        if !matches!(self, Reader::Undecided) {
            self.sink().text(bytes);
        }
    }
}
