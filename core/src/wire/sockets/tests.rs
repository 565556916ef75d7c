use super::*;

fn upgrade(target: &str) -> HttpRequest {
    HttpRequest::new("GET", target, vec![("upgrade".into(), "websocket".into())], Vec::new())
}

#[test]
fn an_upgrade_on_the_realtime_path_opens_a_session() {
    let mock = MockModel::builder().responds("Hi").build().unwrap();
    let reply = crate::wire::handle(&mock, &upgrade("/v1/realtime?model=gpt-realtime"));
    assert_eq!(reply.status(), 101, "{reply:?}");
}
