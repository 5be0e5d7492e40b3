import CacheStore
import Testing

enum ParentKey: Hashable, Sendable {
    case a, b, c
}

enum ScopedKey: Hashable, Sendable, CaseIterable {
    case x, y, z
}

typealias ScopeTransformation = BiDirectionalTransformation<ParentKey?, ScopedKey?>

/// `to` maps `.x` and `.y` both to `.a` (not injective); `from` maps `.a` back to `.x` only.
let nonInjectiveTo: ScopeTransformation = (
    from: { parent in [.a: .x, .c: .z][parent ?? .b] },
    to: { scoped in [.x: .a, .y: .a, .z: .c][scoped ?? .z] }
)

/// `from` and `to` swap `.a` and `.b` differently: `from(.a) == .x` but `to(.x) == .b`.
let nonInverse: ScopeTransformation = (
    from: { parent in [.a: .x, .b: .y, .c: .z][parent ?? .c] },
    to: { scoped in [.x: .b, .y: .a, .z: .c][scoped ?? .z] }
)

/// `from` maps `.a` and `.b` both to `.x` (not injective); `to(.x) == .a`.
let nonInjectiveFrom: ScopeTransformation = (
    from: { parent in [.a: .x, .b: .x, .c: .z][parent ?? .c] },
    to: { scoped in [.x: .a, .z: .c][scoped ?? .z] }
)

/// A scoped key `s` is mapped exactly when `to(s)` is a parent key `p` with `from(p) == s`: it then
/// shows `p`'s value. Every other scoped key lives in the scope's own storage. `get`, `contains`,
/// `allValues`, `valuesInCache` and `changes` all follow that rule, whatever the transformation.
@Suite(.timeLimit(.minutes(2))) struct KeyTransformationVisibilityTests {
    static let transformations: [(name: String, transformation: ScopeTransformation)] = [
        ("non-injective to", nonInjectiveTo),
        ("non-inverse from and to", nonInverse),
        ("non-injective from", nonInjectiveFrom),
    ]

    /// The scoped keys the rule makes visible over `parent`.
    static func visibleKeys(
        over parent: CacheStore<ParentKey>, through transformation: ScopeTransformation
    ) -> Set<ScopedKey> {
        Set(
            ScopedKey.allCases.filter { scoped in
                guard let parentKey = transformation.to(scoped) else { return false }
                return transformation.from(parentKey) == scoped && parent.contains(parentKey)
            })
    }

    /// Whether `key` reads and writes a parent key under the rule (else it lives in the scope).
    static func isMapped(_ key: ScopedKey, through transformation: ScopeTransformation) -> Bool {
        guard let parentKey = transformation.to(key) else { return false }
        return transformation.from(parentKey) == key
    }

    /// Every way of reading `scope` says the same about every scoped key, and what the rule says.
    static func expectAgreement(
        _ scope: CacheStore<ScopedKey>,
        over parent: CacheStore<ParentKey>,
        through transformation: ScopeTransformation,
        _ situation: String,
        writtenToTheScope written: Set<ScopedKey> = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let allValues = scope.allValues
        let integers = scope.valuesInCache(ofType: Int.self)
        let visible = visibleKeys(over: parent, through: transformation).union(
            written.filter { key in !isMapped(key, through: transformation) })
        #expect(Set(allValues.keys) == visible, "allValues \(situation)", sourceLocation: sourceLocation)
        for key in ScopedKey.allCases {
            #expect(
                scope.contains(key) == (allValues[key] != nil), "contains(\(key)) \(situation)",
                sourceLocation: sourceLocation)
            #expect(
                scope.get(key, as: Int.self) == allValues[key] as? Int, "get(\(key)) \(situation)",
                sourceLocation: sourceLocation)
            #expect(
                integers[key] == scope.get(key, as: Int.self), "valuesInCache[\(key)] \(situation)",
                sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: transformations)
    func readsAgreeWithTheRule(name: String, transformation: ScopeTransformation) {
        let parent = CacheStore<ParentKey>(initialValues: [.a: 1, .b: 2, .c: 3])
        let scope = parent.scope(keyTransformation: transformation)
        Self.expectAgreement(scope, over: parent, through: transformation, "with \(name), parent a, b, c set")
        parent.remove(.a)
        Self.expectAgreement(scope, over: parent, through: transformation, "with \(name), parent a removed")
    }

    @Test(arguments: transformations)
    func writesThroughTheScopeAgreeWithReads(name: String, transformation: ScopeTransformation) {
        let parent = CacheStore<ParentKey>(initialValues: [.c: 3])
        let scope = parent.scope(keyTransformation: transformation)
        var written: Set<ScopedKey> = []
        for (value, key) in zip(10..., ScopedKey.allCases) {
            scope.set(value: value, forKey: key)
            written.insert(key)
            Self.expectAgreement(
                scope, over: parent, through: transformation, "with \(name), after setting \(key)",
                writtenToTheScope: written)
            // A mapped key's write lands in the parent; an unmapped key's never does.
            if let parentKey = transformation.to(key), !Self.isMapped(key, through: transformation) {
                #expect(parent.get(parentKey, as: Int.self) != value, "\(key) is not mapped, with \(name)")
            }
        }
    }

    /// Each parent write is reported in the scope's `changes` as exactly the scoped keys whose value
    /// changed, read through `get` and through `allValues` alike.
    @Test(arguments: transformations)
    func changesAgreeWithReads(name: String, transformation: ScopeTransformation) async {
        let parent = CacheStore<ParentKey>(initialValues: [.a: 1, .b: 2])
        let scope = parent.scope(keyTransformation: transformation)
        var changes = scope.changes.makeAsyncIterator()
        for (value, parentKey) in zip(20..., [ParentKey.a, .b, .a, .b]) {
            let (gotBefore, listedBefore) = (Self.getEach(scope), scope.valuesInCache(ofType: Int.self))
            parent.set(value: value, forKey: parentKey)
            let (gotAfter, listedAfter) = (Self.getEach(scope), scope.valuesInCache(ofType: Int.self))
            // `.c` maps to `.z` and back in every transformation: setting it ends each element.
            parent.set(value: value, forKey: .c)
            var reported: Set<ScopedKey> = []
            while !reported.contains(.z), let keys = await changes.next() {
                for key in ScopedKey.allCases where keys.contains(key) { reported.insert(key) }
            }
            let situation = "with \(name) after parent \(parentKey) was set"
            for key in [ScopedKey.x, .y] {
                #expect(
                    reported.contains(key) == (gotBefore[key] != gotAfter[key]),
                    "changes and get disagree on \(key) \(situation): get \(gotBefore) -> \(gotAfter)")
                #expect(
                    reported.contains(key) == (listedBefore[key] != listedAfter[key]),
                    "changes and allValues disagree on \(key) \(situation): \(listedBefore) -> \(listedAfter)")
            }
        }
    }

    /// Every scoped key's value read with `get`.
    static func getEach(_ scope: CacheStore<ScopedKey>) -> [ScopedKey: Int] {
        var values: [ScopedKey: Int] = [:]
        for key in ScopedKey.allCases { values[key] = scope.get(key, as: Int.self) }
        return values
    }
}
