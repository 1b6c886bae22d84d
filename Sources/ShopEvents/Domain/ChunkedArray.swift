/// An array that grows by chunks of 8,192 elements and never moves what it
/// holds: growing copies nothing and frees nothing, so a long history neither
/// holds its table twice while it grows nor leaves the old copies behind in
/// the heap (as doubling one large array does, every buffer it outgrew).
struct ChunkedArray<Element: Hashable & Sendable>: Hashable, Sendable {
    static var chunkShift: Int { 13 }
    static var chunkSize: Int { 1 << chunkShift }

    /// Every chunk full but the last, each allocated whole.
    private(set) var chunks: [[Element]] = []
    private(set) var count = 0

    init() {}

    /// Chunks as ``chunks`` gives them (every one full but the last, none empty).
    init(chunks: [[Element]]) {
        self.chunks = chunks
        count = chunks.reduce(0) { $0 + $1.count }
    }

    subscript(position: Int) -> Element {
        get { chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)] }
        set { chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)] = newValue }
    }

    var last: Element? { chunks.last?.last }

    mutating func append(_ element: Element) {
        if count & (Self.chunkSize - 1) == 0 {
            chunks.append([])
            chunks[chunks.count - 1].reserveCapacity(Self.chunkSize)
        }
        chunks[chunks.count - 1].append(element)
        count += 1
    }
}
