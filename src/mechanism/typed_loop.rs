//! A scenario's hot loop compiled for the endpoint's concrete type. Through
//! `dyn Endpoint` every send and receive is a call with its prologue, which
//! a kernel mechanism's system call dwarfs but a spinning shm ring does not:
//! there the two calls per side cost about 8 ns of a ~100 ns round trip
//! (benches/shm_rtt.rs). A loop written once as an `EndpointLoop` runs with
//! shm's operations inlined, and through `dyn` for every other mechanism.

use super::shm::ShmEndpoint;
use super::Endpoint;
use std::any::Any;

/// A loop over one endpoint, generic so it can be compiled per type.
pub trait EndpointLoop {
    type Out;
    fn run<E: Endpoint + ?Sized>(self, ep: &mut E) -> Self::Out;
}

/// Runs `body` on `ep`, with the calls static where that pays.
pub fn run_typed<L: EndpointLoop>(ep: &mut dyn Endpoint, body: L) -> L::Out {
    let any: &mut dyn Any = ep;
    if let Some(shm) = any.downcast_mut::<ShmEndpoint>() {
        return body.run(shm);
    }
    body.run(ep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanism::{find, Values};
    use crate::params::Value;

    /// Names the type the loop was compiled for.
    struct TypeName;

    impl EndpointLoop for TypeName {
        type Out = &'static str;
        fn run<E: Endpoint + ?Sized>(self, _ep: &mut E) -> &'static str {
            std::any::type_name::<E>()
        }
    }

    fn typed_as(mech: &str, values: Values) -> &'static str {
        let dir = tempfile::tempdir().unwrap();
        let (mut a, _b) = find(mech).unwrap().connect(dir.path(), &values).unwrap();
        run_typed(a.as_mut(), TypeName)
    }

    #[test]
    fn shm_gets_its_own_loop_and_the_rest_share_the_dyn_one() {
        let spin: Values = [(crate::mechanism::SHM_WAKE.name, Value::Text("spin".into()))].into();
        assert!(typed_as("shm", spin).ends_with("ShmEndpoint"));
        assert!(typed_as("pipe", Values::new()).contains("dyn"));
    }
}
