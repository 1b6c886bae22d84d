import Synchronization

/// A value the routes give the middleware (the context is copied on its way to them).
final class RequestField<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    func set(_ new: Value) { value.withLock { $0 = new } }
    func get() -> Value? { value.withLock { $0 } }
}
