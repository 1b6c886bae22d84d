import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ShopEvents

/// The household's web app (docs/APP.md): the HTML, CSS and JavaScript
/// modules in `Server/Sources/ShopHub/WebApp`, served as they are — no build
/// step — from memory, each file read once at start.
///
/// `/` is the page; every other file is under `/app/VERSION/…`, where VERSION
/// is a hash of all the files: those answers may be kept for a year
/// (`immutable`), and a new hub's page names new paths. The page itself is
/// revalidated on every load (`no-cache` with an `ETag`). Every answer carries
/// a strict `Content-Security-Policy` (scripts, styles, images and requests
/// from the hub alone; no inline script or style) and is sent gzipped to a
/// browser that accepts it.
///
/// ```swift
/// let router = Router(context: HubRequestContext.self)
/// if let app = try WebApp.bundled() { app.add(to: router) }
/// ```
public struct WebApp: Sendable {
    /// One file as it is answered.
    struct File: Sendable {
        var contentType: String
        var body: ByteBuffer
        var gzipped: ByteBuffer?
        var etag: String
        var immutable: Bool
    }

    /// A hash of every file: the folder its paths are served under.
    public let version: String
    /// By the path a browser asks for.
    let files: [String: File]

    /// The policy every answer of the app carries: nothing inline, nothing from elsewhere.
    public static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
        "manifest-src 'self'", "worker-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    /// The placeholder in `index.html` (and the manifest, the service worker) that becomes ``version``.
    static let versionMark = "%APP_VERSION%"
    /// The placeholder in `sw.js` that becomes the list of the versioned files' paths (a JavaScript array).
    static let filesMark = "%APP_FILES%"
    /// The files served at fixed paths (the page, the manifest, the service worker): revalidated on every use.
    static let fixedPaths: Set<String> = ["index.html", "manifest.webmanifest", "sw.js"]

    /// The app in `directory` (a copy of `WebApp/`). Throws if it holds no `index.html`.
    public init(directory: URL) throws {
        let root = directory.standardizedFileURL
        var contents: [(String, [UInt8])] = []
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = walker?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(root.path.count + 1))
            guard !relative.hasPrefix("."), !relative.contains("/.") else { continue }
            contents.append((relative, Array(try Data(contentsOf: url))))
        }
        guard contents.contains(where: { $0.0 == "index.html" }) else {
            throw HubError.unavailable("the web app's folder \(root.path) holds no index.html")
        }
        contents.sort { $0.0 < $1.0 }
        var hasher = SHA256()
        for (path, bytes) in contents { hasher.update(Array(path.utf8)); hasher.update(bytes) }
        let version = String(hasher.finalize().description.prefix(12))
        self.version = version
        // What the service worker keeps for opening without a network: every versioned file.
        let versioned = contents.map(\.0).filter { !Self.fixedPaths.contains($0) }.map { "/app/\(version)/\($0)" } + ["/manifest.webmanifest"]
        let list = "[" + versioned.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
        var files: [String: File] = [:]
        for (relative, original) in contents {
            let fixed = Self.fixedPaths.contains(relative)
            var bytes = original
            if fixed {
                bytes = Array(String(decoding: original, as: UTF8.self).replacingOccurrences(of: Self.versionMark, with: version)
                    .replacingOccurrences(of: Self.filesMark, with: list).utf8)
            }
            let path = relative == "index.html" ? "/" : fixed ? "/\(relative)" : "/app/\(version)/\(relative)"
            files[path] = Self.file(relative, bytes, immutable: !fixed)
        }
        self.files = files
    }

    /// The copy of the app built into the hub (SwiftPM's resources beside the executable), or nil
    /// where the executable was copied without them.
    public static func bundled() throws -> WebApp? {
        let beside = Bundle.main.bundleURL.appendingPathComponent("ShopHub_ShopHub.resources").appendingPathComponent("WebApp")
        guard FileManager.default.fileExists(atPath: beside.appendingPathComponent("index.html").path) else { return nil }
        return try WebApp(directory: beside)
    }

    /// Answers `GET` (and `HEAD`) of every file on `router`.
    public func add(to router: Router<HubRequestContext>) {
        for (path, file) in files {
            router.get(RouterPath(path)) { request, _ in Self.response(file, request) }
            router.head(RouterPath(path)) { request, _ in Self.response(file, request) }
        }
    }

    /// The paths served, sorted: what the tests walk.
    public var paths: [String] { files.keys.sorted() }

    private static func file(_ relative: String, _ bytes: [UInt8], immutable: Bool) -> File {
        let type = contentType(relative)
        var body = ByteBuffer(bytes: bytes)
        var gzipped: ByteBuffer?
        if !type.hasPrefix("image/png"), bytes.count > 256, let packed = try? body.compress(with: .gzip()), packed.readableBytes < bytes.count {
            gzipped = packed
        }
        body = ByteBuffer(bytes: bytes)
        let etag = "\"\(SHA256.hash(bytes).description.prefix(16))\""
        return File(contentType: type, body: body, gzipped: gzipped, etag: etag, immutable: immutable)
    }

    static func contentType(_ path: String) -> String {
        switch path.split(separator: ".").last.map(String.init) ?? "" {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "json": "application/json"
        case "webmanifest": "application/manifest+json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }

    // reason: valid field names (RFC 9110 tokens)
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!, crossOriginOpenerPolicy = HTTPField.Name("Cross-Origin-Opener-Policy")!

    /// The security headers of every answer of the app.
    static func securityHeaders() -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        headers[Self.referrerPolicy] = "no-referrer"
        headers[Self.crossOriginOpenerPolicy] = "same-origin"
        return headers
    }

    private static func response(_ file: File, _ request: Request) -> Response {
        var headers = securityHeaders()
        headers[.contentType] = file.contentType
        headers[.cacheControl] = file.immutable ? "public, max-age=31536000, immutable" : "no-cache"
        headers[.vary] = "Accept-Encoding"
        // The gzipped bytes are another representation: a tag of their own (RFC 9110 8.8.3).
        let gzip = file.gzipped != nil && Compression.acceptsGzip(request.headers[.acceptEncoding])
        let etag = gzip ? String(file.etag.dropLast()) + "-gzip\"" : file.etag
        headers[.eTag] = etag
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimmingBlanks == etag }) {
            return Response(status: .notModified, headers: headers)
        }
        var body = file.body
        if gzip, let gzipped = file.gzipped {
            headers[.contentEncoding] = "gzip"
            body = gzipped
        }
        headers[.contentLength] = "\(body.readableBytes)"
        if request.method == .head { return Response(status: .ok, headers: headers) }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}
