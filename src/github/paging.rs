//! Link-header pagination.

/// The `rel="next"` target of a `Link` header, if any.
///
/// `<https://api.github.com/…&page=2>; rel="next", <…&page=5>; rel="last"`
pub(super) fn next_link(link_header: &str) -> Option<String> {
    link_header.split(',').find_map(|part| {
        let (target, params) = part.trim().split_once(';')?;
        let target = target.trim().strip_prefix('<')?.strip_suffix('>')?;
        let is_next = params.split(';').any(|param| {
            let param = param.trim();
            param == r#"rel="next""# || param == "rel=next"
        });
        is_next.then(|| target.to_owned())
    })
}

/// The page number of the `rel="last"` target of a `Link` header: how many pages the
/// listing has (absent on the last page itself, and for cursor-paged endpoints).
pub(super) fn last_page(link_header: &str) -> Option<usize> {
    link_header.split(',').find_map(|part| {
        let (target, params) = part.trim().split_once(';')?;
        let is_last = params.split(';').any(|param| {
            let param = param.trim();
            param == r#"rel="last""# || param == "rel=last"
        });
        if !is_last {
            return None;
        }
        let target = target.trim().strip_prefix('<')?.strip_suffix('>')?;
        let query = target.split_once('?')?.1;
        query
            .split('&')
            .find_map(|kv| kv.strip_prefix("page="))
            .and_then(|n| n.parse().ok())
    })
}

/// Where the items sit in a page: the body itself, or a field of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PageShape {
    /// `[ … ]`
    Array,
    /// `{ "total_count": n, "<field>": [ … ] }`
    Field(&'static str),
}

/// Appends `per_page=100` to a path unless it already carries one.
pub(super) fn with_per_page(path: &str) -> String {
    if path.contains("per_page=") {
        return path.to_owned();
    }
    let sep = if path.contains('?') { '&' } else { '?' };
    format!("{path}{sep}per_page=100")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_links() {
        let cases = [
            (
                r#"<https://api.github.com/repositories/1/pulls/2/commits?per_page=100&page=2>; rel="next", <https://api.github.com/repositories/1/pulls/2/commits?per_page=100&page=3>; rel="last""#,
                Some("https://api.github.com/repositories/1/pulls/2/commits?per_page=100&page=2"),
            ),
            (
                r#"<https://h/x?page=1>; rel="prev", <https://h/x?page=3>; rel="next""#,
                Some("https://h/x?page=3"),
            ),
            (
                r#"<https://h/x?page=1>; rel="first", <https://h/x?page=1>; rel="prev""#,
                None,
            ),
            ("", None),
            ("garbage", None),
        ];
        for (header, want) in cases {
            assert_eq!(next_link(header).as_deref(), want, "{header}");
        }
    }

    #[test]
    fn last_pages() {
        let cases = [
            (
                r#"<https://h/x?per_page=100&page=2>; rel="next", <https://h/x?per_page=100&page=14>; rel="last""#,
                Some(14),
            ),
            (r#"<https://h/x?page=1>; rel="prev""#, None),
            (r#"<https://h/x?after=abc>; rel="last""#, None),
            ("", None),
        ];
        for (header, want) in cases {
            assert_eq!(last_page(header), want, "{header}");
        }
    }

    #[test]
    fn per_page() {
        assert_eq!(with_per_page("/a"), "/a?per_page=100");
        assert_eq!(with_per_page("/a?state=open"), "/a?state=open&per_page=100");
        assert_eq!(with_per_page("/a?per_page=5"), "/a?per_page=5");
    }
}
