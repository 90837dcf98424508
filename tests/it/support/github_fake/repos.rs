//! The rest of the repository: a collaborator's permission and file contents (base64, raw, directories).

use super::*;

pub(super) fn route(
    s: &mut State,
    ctx: &Ctx<'_>,
    method: &str,
    parts: &[&str],
) -> Option<ResponseTemplate> {
    Some(match (method, parts) {
        ("GET", ["collaborators", user, "permission"]) => {
            let user = decode(user);
            let permission = s
                .permissions
                .get(&user)
                .cloned()
                .unwrap_or_else(|| "read".into());
            let role = match permission.as_str() {
                "write" => "write",
                "admin" => "admin",
                "none" => "none",
                _ => "read",
            };
            ok(json!({"permission": permission, "role_name": role, "user": user_json(&user)}))
        }
        ("GET", ["contents", ..]) => {
            let path = decode(&parts[1..].join("/"));
            let git_ref = ctx.query("ref").unwrap_or_else(|| "main".into());
            let Some(bytes) = s.files.get(&(git_ref.clone(), path.clone())).cloned() else {
                // A directory: the entries directly in it, without content.
                let prefix = format!("{path}/");
                let entries: Vec<_> = s
                    .files
                    .iter()
                    .filter(|((r, p), _)| *r == git_ref && p.starts_with(&prefix))
                    .filter(|((_, p), _)| !p[prefix.len()..].contains('/'))
                    .map(|((_, p), bytes)| {
                        json!({
                            "type": "file", "size": bytes.len(), "name": &p[prefix.len()..],
                            "path": p, "sha": format!("blob-{}", bytes.len()),
                        })
                    })
                    .collect();
                if entries.is_empty() {
                    return Some(error(404, "Not Found"));
                }
                return Some(ok(json!(entries)));
            };
            let accept = ctx
                .req
                .headers
                .get("accept")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            if accept.contains("raw") {
                return Some(
                    ResponseTemplate::new(200).set_body_raw(bytes, "application/octet-stream"),
                );
            }
            let large = bytes.len() > 1_000_000;
            let content = if large {
                String::new()
            } else {
                // GitHub wraps the base64 at 60 columns.
                use base64::Engine;
                let packed = base64::engine::general_purpose::STANDARD.encode(&bytes);
                packed
                    .as_bytes()
                    .chunks(60)
                    .map(|c| String::from_utf8_lossy(c).into_owned() + "\n")
                    .collect()
            };
            ok(json!({
                "type": "file", "encoding": if large { "none" } else { "base64" },
                "size": bytes.len(), "name": path.rsplit('/').next(), "path": path,
                "content": content, "sha": format!("blob-{}", bytes.len()),
                "url": format!("https://api.github.com/repos/{}/contents/{path}?ref={git_ref}", s.full_name()),
                "download_url": null
            }))
        }
        _ => return None,
    })
}
