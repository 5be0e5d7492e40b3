// On Linux, in a main-actor test target, an XCTestCase subclass must be nonisolated: swift-corelibs-xctest's
// initializer is nonisolated.
// main-actor app
// expect: main actor-isolated initializer 'init(name:testClosure:)' has different actor isolation from nonisolated overridden declaration
import XCTest

final class FeedTests: XCTestCase {
    func testLoading() {}
}
