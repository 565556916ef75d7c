//! An index of the routes that match by request alone (a recording's routes: one per recorded request). A request
//! is compared with the few routes whose expected fields have its fingerprint, instead of with every route, so
//! replaying a recording of N exchanges costs a handful of comparisons per request instead of N. The answer is
//! the one a scan in route order gives: the first route that matches.
//!
//! Not in the WASM module (it scans: the same answers, and no code the module's size budget would pay for).

use crate::model::ChatRequest;
use crate::request_match::{canonical_for, fingerprint_of, FieldPath};
use crate::script::RouteMatch;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Below this many routes a scan is as quick as the index.
pub(crate) const INDEXED_FROM: usize = 16;

/// Routes by how they are found.
#[derive(Debug, Default)]
pub(crate) struct RouteIndex {
    /// Routes compared one by one, in order: every route with another criterion than the request, or none.
    scanned: Vec<usize>,
    /// The request-only routes, grouped by the paths they ignore and the fields they compare.
    groups: Vec<Group>,
}

#[derive(Debug)]
struct Group {
    ignore: Vec<FieldPath>,
    keys: Vec<String>,
    /// Route positions by the fingerprint of their expected fields, each list in route order.
    by_fingerprint: BTreeMap<u64, Vec<usize>>,
}

impl RouteIndex {
    /// The index of `routes` (route matchers in route order).
    pub(crate) fn build<'a>(routes: impl Iterator<Item = &'a RouteMatch>) -> RouteIndex {
        let mut index = RouteIndex::default();
        for (position, route) in routes.enumerate() {
            let request_only = route.operation.is_none()
                && route.model.is_none()
                && route.endpoint.is_none()
                && route.predicate.is_none();
            let Some(matcher) = route.request.as_deref().filter(|_| request_only) else {
                index.scanned.push(position);
                continue;
            };
            let keys: Vec<String> = matcher.fields().map(str::to_string).collect();
            let group = match index.groups.iter().position(|g| g.keys == keys && g.ignore == matcher.ignored()) {
                Some(found) => found,
                None => {
                    let ignore = matcher.ignored().to_vec();
                    index.groups.push(Group { ignore, keys, by_fingerprint: BTreeMap::new() });
                    index.groups.len() - 1
                }
            };
            if let Some(group) = index.groups.get_mut(group) {
                group.by_fingerprint.entry(matcher.fingerprint()).or_default().push(position);
            }
        }
        index
    }

    /// The first route (by position) that takes `request`; `route(i)` is route `i`'s matcher.
    pub(crate) fn find<'a>(
        &self,
        request: &ChatRequest,
        route: impl Fn(usize) -> Option<&'a RouteMatch>,
    ) -> Option<usize> {
        let mut best = self.scanned.iter().copied().find(|&i| route(i).is_some_and(|m| m.matches(request)));
        // The request's canonical form, made once per distinct `ignore` list.
        let mut forms: Vec<(&[FieldPath], Map<String, Value>)> = Vec::new();
        for group in &self.groups {
            let at = match forms.iter().position(|(ignore, _)| *ignore == group.ignore.as_slice()) {
                Some(at) => at,
                None => {
                    forms.push((&group.ignore, canonical_for(request, &group.ignore)));
                    forms.len() - 1
                }
            };
            let Some((_, found)) = forms.get(at) else { continue };
            let Some(fingerprint) = fingerprint_of(found, group.keys.iter().map(String::as_str)) else { continue };
            for &i in group.by_fingerprint.get(&fingerprint).into_iter().flatten() {
                if best.is_some_and(|b| i >= b) {
                    break;
                }
                if route(i).and_then(|m| m.request.as_deref()).is_some_and(|m| m.matches_canonical(found)) {
                    best = Some(i);
                    break;
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;
    use serde_json::json;

    /// Routes of every kind: request-only routes (some asking the same, so the first must win), a model route
    /// among them, routes that ignore paths, one that compares the model too, and a default route last.
    fn scenario() -> Scenario {
        let user = |text: &str| json!({"messages": [{"role": "user", "content": text}]});
        let mut routes: Vec<_> = (0..24)
            .map(|i| json!({"match": {"request": user(&format!("q{}", i % 12))}, "steps": [{"text": format!("r{i}")}]}))
            .collect();
        routes[5] = json!({"match": {"model": "gpt-4o-mini"}, "steps": [{"text": "mini"}]});
        routes.push(json!({"match": {"request": {"model": "gpt-4o", "messages": [{"role": "user", "content": "q20"}], "temperature": 0.5}, "ignore": ["temperature"]}, "steps": [{"text": "t"}]}));
        routes.push(json!({"match": {"request": {"messages": [{"role": "user", "content": "q21"}], "temperature": 0.5}}, "steps": [{"text": "t2"}]}));
        routes.push(
            json!({"match": {"request": user("q22"), "ignore": ["messages[0].content"]}, "steps": [{"text": "any"}]}),
        );
        routes.push(json!({"steps": [{"text": "default"}]}));
        Scenario::from_value(json!({"cuecard": 1, "routes": routes})).unwrap()
    }

    #[test]
    fn the_index_finds_the_route_a_scan_in_order_finds() {
        let scenario = scenario();
        let matchers: Vec<&RouteMatch> = scenario.routes().iter().map(|r| &r.matcher).collect();
        let index = RouteIndex::build(matchers.iter().copied());
        assert!(index.scanned.len() >= 2 && index.groups.len() >= 3, "{index:?}");
        let mut checked = 0;
        for model in ["gpt-4o", "gpt-4o-mini", "claude"] {
            for text in (0..24).map(|i| format!("q{i}")).chain(["Q1".to_string(), String::new()]) {
                for temperature in [None, Some(0.5), Some(0.7)] {
                    let mut request = ChatRequest::user(model, &text);
                    request.temperature = temperature;
                    let scanned = matchers.iter().position(|m| m.matches(&request));
                    assert_eq!(
                        index.find(&request, |i| matchers.get(i).copied()),
                        scanned,
                        "{model} {text} {temperature:?}"
                    );
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 3 * 26 * 3);
    }

    #[test]
    fn a_mock_with_many_routes_answers_through_the_index_and_rebuilds_it_when_a_route_is_added() {
        let mock = crate::mock::MockModel::from_scenario(&scenario()).unwrap();
        let answer = |model: &str, text: &str| {
            mock.chat(ChatRequest::user(model, text)).map(|r| r.message.text.unwrap_or_default()).map_err(|_| ())
        };
        // Two routes ask "q1" (1 and 13): the first in order answers.
        assert_eq!(answer("gpt-4o", "q1"), Ok("r1".to_string()));
        // Route 26 ignores the message text: it takes any one user message before the default route can.
        assert_eq!(answer("gpt-4o", "nothing recorded"), Ok("any".to_string()));
        let without_default = crate::mock::MockModel::new();
        for i in 0..20 {
            let request = crate::request_match::RequestMatcher::new(
                &json!({"messages": [{"role": "user", "content": format!("q{i}")}]}),
                &[],
            )
            .unwrap();
            let mut matcher = RouteMatch::any();
            matcher.request = Some(std::sync::Arc::new(request));
            without_default.add_route(crate::script::Route::new(matcher)).unwrap();
            without_default.add_step(crate::Step::text(format!("r{i}")).unwrap()).unwrap();
        }
        let ask = |model: &str, text: &str| {
            without_default.chat(ChatRequest::user(model, text)).ok().and_then(|r| r.message.text)
        };
        assert_eq!(ask("gpt-4o", "q7").as_deref(), Some("r7"));
        assert_eq!(ask("gpt-5", "zzz"), None);
        // A route added after the index was made is found: adding drops the index.
        without_default.add_route(crate::script::Route::new(RouteMatch::model("gpt-5"))).unwrap();
        without_default.add_step(crate::Step::text("five").unwrap()).unwrap();
        assert_eq!(ask("gpt-5", "zzz").as_deref(), Some("five"));
        assert_eq!(ask("gpt-5", "q8").as_deref(), Some("r8"));
    }
}
