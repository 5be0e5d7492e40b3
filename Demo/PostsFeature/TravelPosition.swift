/// Which recorded step of a session the screen shows: the state after `step` of its `steps`
/// actions (step 0 is the state the recording started from, step `steps` the last).
public struct TravelPosition: Equatable, Sendable {
    /// How many of the session's actions the state shown follows.
    public var step: Int
    /// How many actions the session has recorded.
    public var steps: Int
    /// The session is still being recorded: its live screen is a key away (Esc).
    public var isLive: Bool

    /// The position of `step` of `steps`, in a live session or a replay.
    public init(step: Int, steps: Int, isLive: Bool) {
        self.step = step
        self.steps = steps
        self.isLive = isLive
    }
}
