extension TestClock {
    /// A point in a ``TestClock``'s time: the time since the clock's zero.
    ///
    /// ```swift
    /// let clock = TestClock()
    /// await clock.advance(by: .seconds(2))
    /// #expect(clock.now == TestClock.Instant(offset: .seconds(2)))
    /// ```
    ///
    /// ## Topics
    ///
    /// ### Creating an instant
    ///
    /// - ``init(offset:)``
    /// - ``offset``
    ///
    /// ### Arithmetic and order
    ///
    /// - ``advanced(by:)``
    /// - ``duration(to:)``
    /// - ``<(_:_:)``
    public struct Instant: InstantProtocol, Sendable {
        /// The time since the clock's zero.
        public var offset: Duration

        /// Creates the instant `offset` after the clock's zero.
        ///
        /// - Parameter offset: The time since the clock's zero; zero by default.
        public init(offset: Duration = .zero) {
            self.offset = offset
        }

        /// The instant `duration` after this one.
        ///
        /// - Parameter duration: The time to add; negative to go back.
        /// - Returns: The later (or, for a negative duration, earlier) instant.
        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// The time from this instant to `other`.
        ///
        /// - Parameter other: The instant to measure to.
        /// - Returns: The duration; negative when `other` is earlier.
        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        /// Whether `lhs` comes before `rhs`.
        ///
        /// - Parameters:
        ///   - lhs: An instant.
        ///   - rhs: Another instant.
        /// - Returns: `true` when `lhs` is earlier.
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }
}
