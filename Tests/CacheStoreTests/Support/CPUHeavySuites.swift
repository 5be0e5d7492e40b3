import Testing

/// The suites that keep a core busy for seconds (tens under ThreadSanitizer) run here, one test at
/// a time: the model-based and stress suites, the long action chains, the slot attacks, and the
/// memory tests, whose probe runs in a process of its own.
///
/// Run beside each other, they held both cores of a two-core CI machine, and synchronous ones held
/// the concurrency pool's two threads too: every other test stalled at the start of the run (20 s in
/// the plain run; under ThreadSanitizer 70-90 s, for tests of a clock that never waits). Here at most
/// one of them holds a core, or a pool thread: the synchronous chains of `ReentrancyDepthTests` run
/// on the pool, as a handler's recursion must fit a pool thread's stack; the others work on threads
/// of their own (`offThePool`).
@Suite(.serialized, .timeLimit(.minutes(10))) enum CPUHeavySuites {}
