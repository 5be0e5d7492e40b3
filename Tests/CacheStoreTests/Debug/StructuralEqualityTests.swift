import CacheStore
import Testing

private struct Author: Sendable {
    var name: String
    var tags: [String]
}

private enum Event: Sendable {
    case idle
    case loaded(count: Int, source: String)
    case failed(any Error)
}

private final class Reference: @unchecked Sendable {
    let value = 1
}

/// `isStructurallyEqual`, the comparison the debug log and `TestStore` use: `Equatable` values by `==`, other
/// values field by field, classes by identity; arrays keep their order, sets and dictionaries do not.
@Suite(.timeLimit(.minutes(2))) struct StructuralEqualityTests {
    @Test func equatableValuesUseEquality() {
        #expect(isStructurallyEqual(1, 1))
        #expect(!isStructurallyEqual(1, 2))
        #expect(!isStructurallyEqual(1, "1"))
        #expect(!isStructurallyEqual(1, 1.0))
    }

    @Test func nonEquatableValuesCompareStructurally() {
        #expect(isStructurallyEqual(Author(name: "a", tags: ["x"]), Author(name: "a", tags: ["x"])))
        #expect(!isStructurallyEqual(Author(name: "a", tags: ["x"]), Author(name: "a", tags: ["y"])))
        #expect(isStructurallyEqual(Event.loaded(count: 1, source: "s"), Event.loaded(count: 1, source: "s")))
        #expect(!isStructurallyEqual(Event.loaded(count: 1, source: "s"), Event.loaded(count: 2, source: "s")))
        #expect(!isStructurallyEqual(Event.idle, Event.loaded(count: 1, source: "s")))
    }

    @Test func errorsInResultsCompareByTheValueTheyHold() {
        let failure: Result<Int, any Error> = .failure("no url")
        #expect(isStructurallyEqual(failure, Result<Int, any Error>.failure("no url")))
        #expect(!isStructurallyEqual(failure, Result<Int, any Error>.failure("other")))
        #expect(!isStructurallyEqual(failure, Result<Int, any Error>.success(1)))
    }

    @Test func arraysKeepOrderSetsAndDictionariesDoNot() {
        #expect(!isStructurallyEqual([1, 2], [2, 1]))
        let first: [String: Author] = ["a": Author(name: "a", tags: []), "b": Author(name: "b", tags: [])]
        let second: [String: Author] = ["b": Author(name: "b", tags: []), "a": Author(name: "a", tags: [])]
        #expect(isStructurallyEqual(first, second))
        #expect(!isStructurallyEqual(first, ["a": Author(name: "a", tags: [])]))
    }

    @Test func optionalsCompareByWrappedValue() {
        #expect(isStructurallyEqual(Optional(Author(name: "a", tags: [])) as Any, Author(name: "a", tags: [])))
        #expect(isStructurallyEqual(Optional<Int>.none as Any, Optional<String>.none as Any))
        #expect(!isStructurallyEqual(Optional<Int>.none as Any, 0))
    }

    @Test func classesCompareByIdentity() {
        let shared = Reference()
        #expect(isStructurallyEqual(shared, shared))
        #expect(!isStructurallyEqual(Reference(), Reference()))
    }
}
