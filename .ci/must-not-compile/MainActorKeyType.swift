// In a main-actor app, a key type's Hashable conformance is main-actor isolated unless the type is nonisolated.
// main-actor app
// expect: main actor-isolated conformance of 'CartKey' to 'Hashable' cannot satisfy conformance requirement for a 'SendableMetatype' type parameter 'Key'
import CacheStore

enum CartKey { case total }

let cart = CacheStore<CartKey>(initialValues: [:])
