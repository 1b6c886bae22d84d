import Foundation
import ShopTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The web app's files as a real `shop-hub serve` answers them on loopback (docs/APP.md): the page at
/// `/` and every file it names, a strict Content-Security-Policy and nothing inline or from elsewhere,
/// caching (immutable versioned paths, a revalidated page, 304), gzip to a client that asks, `--app DIR`
/// and `--no-app`. The browser tests (Server/Tests/Browser) drive the app itself.
@Suite(.serialized) struct WebAppTests {
    static let policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The app's folder in the sources: what the hub serves, file for file.
    static let sources: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/ShopHub/WebApp")

    static func sourceFiles() throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            guard !url.hasDirectoryPath else { continue }
            files[String(url.standardizedFileURL.path.dropFirst(sources.standardizedFileURL.path.count + 1))] = Array(try Data(contentsOf: url))
        }
        return files
    }

    @Test func thePageAndEveryFileItNamesAreServedWithAStrictPolicyAndCaching() async throws {
        let scratch = ToolRunner()
        defer { scratch.remove() }
        let hub = try HubProcess(data: scratch.path("data"))
        defer { _ = hub.terminate() }

        let page = try RawHTTP.call(port: hub.port, "GET", "/")
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.headers["content-security-policy"] == Self.policy)
        #expect(page.headers["x-content-type-options"] == "nosniff")
        #expect(page.headers["referrer-policy"] == "no-referrer")
        #expect(page.headers["cache-control"] == "no-cache")
        let html = page.text
        // The versioned folder every other file is under, named by the page.
        let version = try #require(html.firstMatch(of: /app\/([0-9a-f]{12})\/app\.js/)?.1 ?? html.firstMatch(of: /app\/([0-9a-f]{12})\//)?.1)
        #expect(!html.contains("%APP_VERSION%"))
        // No inline script or style anywhere: every script has a src, no style element or attribute.
        #expect(html.matches(of: /<script(?![^>]*\bsrc=)[^>]*>/).isEmpty)
        #expect(!html.contains("<style") && !html.contains(" style="))

        let files = try Self.sourceFiles()
        #expect(files.keys.contains("index.html") && files.keys.contains("js/app.js") && files.keys.contains("app.css"))
        for (path, bytes) in files where !["index.html", "manifest.webmanifest", "sw.js"].contains(path) {
            let answer = try RawHTTP.call(port: hub.port, "GET", "/app/\(version)/\(path)")
            #expect(answer.status == 200, "\(path)")
            #expect(answer.body == bytes, "\(path) is served byte for byte")
            #expect(answer.headers["cache-control"] == "public, max-age=31536000, immutable", "\(path)")
            #expect(answer.headers["content-security-policy"] == Self.policy, "\(path)")
            if path.hasSuffix(".js") { #expect(answer.headers["content-type"] == "text/javascript; charset=utf-8") }
            if path.hasSuffix(".css") { #expect(answer.headers["content-type"] == "text/css; charset=utf-8") }
            let text = String(decoding: bytes, as: UTF8.self)
            // Nothing from elsewhere: no URL but the SVG namespace, no inline style attribute made by a template.
            let urls = text.matches(of: /https?:\/\/[^\s"'`)]+/).map { String($0.output) }.filter { $0 != "http://www.w3.org/2000/svg" }
            #expect(urls.isEmpty, "\(path) names \(urls)")
            #expect(!text.contains(" style=\""), "\(path) writes an inline style")
            // Every module it imports is one the hub serves.
            for imported in text.matches(of: /from '\.\/([a-z]+\.js)'/) {
                #expect(files.keys.contains("js/\(imported.1)"), "\(path) imports \(imported.1)")
            }
        }
        let manifest = try RawHTTP.call(port: hub.port, "GET", "/manifest.webmanifest")
        #expect(manifest.status == 200 && manifest.headers["content-type"] == "application/manifest+json")
        #expect(manifest.text.contains("/app/\(version)/icon.svg"))
        // The service worker: at the root (its scope is the app), revalidated, with the version and every file filled in.
        let worker = try RawHTTP.call(port: hub.port, "GET", "/sw.js")
        #expect(worker.status == 200 && worker.headers["cache-control"] == "no-cache")
        #expect(worker.headers["content-type"] == "text/javascript; charset=utf-8")
        #expect(!worker.text.contains("%APP_") && worker.text.contains("\"/app/\(version)/js/app.js\"") && worker.text.contains("'\(version)'"))
        // Another version's paths are no file of this hub.
        #expect(try RawHTTP.call(port: hub.port, "GET", "/app/000000000000/js/app.js").status == 404)
    }

    @Test func revalidationAndGzip() async throws {
        let scratch = ToolRunner()
        defer { scratch.remove() }
        let hub = try HubProcess(data: scratch.path("data"))
        defer { _ = hub.terminate() }
        let page = try RawHTTP.call(port: hub.port, "GET", "/")
        let etag = try #require(page.headers["etag"])
        let again = try RawHTTP.call(port: hub.port, "GET", "/", headers: ["If-None-Match": etag])
        #expect(again.status == 304 && again.body.isEmpty)
        #expect(try RawHTTP.call(port: hub.port, "GET", "/", headers: ["If-None-Match": "\"other\""]).status == 200)

        let version = try #require(page.text.firstMatch(of: /app\/([0-9a-f]{12})\//)?.1)
        let plain = try RawHTTP.call(port: hub.port, "GET", "/app/\(version)/js/app.js")
        #expect(plain.headers["content-encoding"] == nil)
        let packed = try RawHTTP.call(port: hub.port, "GET", "/app/\(version)/js/app.js", headers: ["Accept-Encoding": "br, gzip;q=0.8"])
        #expect(packed.headers["content-encoding"] == "gzip")
        #expect(packed.headers["vary"] == "Accept-Encoding")
        #expect(packed.body.count < plain.body.count / 2)
        #expect(try Self.gunzip(packed.body, in: scratch) == plain.body)
        // gzip;q=0 refuses it.
        #expect(try RawHTTP.call(port: hub.port, "GET", "/app/\(version)/js/app.js", headers: ["Accept-Encoding": "gzip;q=0"]).headers["content-encoding"] == nil)
        // HEAD: the headers, no body.
        let head = try RawHTTP.call(port: hub.port, "HEAD", "/")
        #expect(head.status == 200 && head.body.isEmpty && head.headers["content-length"] == "\(page.body.count)")
        // URLSession, as an app's web view would: it asks for gzip and reads the page whole.
        let fetched = try await HTTP.call("GET", "\(hub.base)/")
        #expect(fetched.status == 200 && fetched.body == page.body)
    }

    @Test func anotherFolderOrNone() async throws {
        let scratch = ToolRunner()
        defer { scratch.remove() }
        let folder = scratch.path("app")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        Scratch.write(Array("<!doctype html><title>Ours</title><script type=\"module\" src=\"app/%APP_VERSION%/a.js\"></script>".utf8),
                      to: folder + "/index.html")
        Scratch.write(Array("export const a = 1;\n".utf8), to: folder + "/a.js")
        let ours = try HubProcess(data: scratch.path("data"), arguments: ["--app", folder])
        let page = try RawHTTP.call(port: ours.port, "GET", "/")
        #expect(page.text.hasPrefix("<!doctype html><title>Ours</title>"))
        let version = try #require(page.text.firstMatch(of: /app\/([0-9a-f]{12})\/a\.js/)?.1)
        #expect(try RawHTTP.call(port: ours.port, "GET", "/app/\(version)/a.js").text == "export const a = 1;\n")
        _ = ours.terminate()

        let none = try HubProcess(data: scratch.path("data"), arguments: ["--no-app"])
        let missing = try RawHTTP.call(port: none.port, "GET", "/")
        #expect(missing.status == 404 && missing.errorCode == "not_found")
        #expect(try RawHTTP.call(port: none.port, "GET", "/healthz").status == 200)
        _ = none.terminate()

        // A folder with no page stops the start, saying so.
        let empty = scratch.path("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let refused = try scratch.run(["serve", "--port", "0", "--data", scratch.path("data"), "--app", empty], executable: Programs.shopHub)
        #expect(refused.status == 3)
        #expect(refused.stderr.contains("holds no index.html"))
    }

    /// The API's GET answers too (a view, the report) go gzipped to a client that asks, at 1 KiB or more.
    @Test func viewsAndTheReportAreGzippedWhenAsked() async throws {
        let scratch = ToolRunner()
        defer { scratch.remove() }
        let hub = try HubProcess(data: scratch.path("data"))
        defer { _ = hub.terminate() }
        let (household, token) = try await HubHTTPOperationTests.newHousehold(hub.base)
        var commands = [#"{"type":"CreateHousehold","id":"\#(UUID())","data":{"household":"\#(household)","name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}"#]
        for n in 0..<60 { commands.append(#"{"type":"CreateItem","id":"\#(UUID())","data":{"name":"Item number \#(n)"}}"#) }
        let push = "{\"push\":{\"commands\":[\(commands.joined(separator: ","))]}}"
        #expect(try await HTTP.call("POST", "\(hub.base)/v1/households/\(household)/sync", token: token, body: Array(push.utf8)).status == 200)
        for path in ["views/all-items-by-name", "report"] {
            let headers = ["Authorization": "Bearer \(token)"]
            let plain = try RawHTTP.call(port: hub.port, "GET", "/v1/households/\(household)/\(path)", headers: headers)
            let packed = try RawHTTP.call(port: hub.port, "GET", "/v1/households/\(household)/\(path)", headers: headers.merging(["Accept-Encoding": "gzip"]) { a, _ in a })
            #expect(plain.status == 200 && plain.headers["content-encoding"] == nil && plain.body.count > 1024, "\(path)")
            #expect(packed.status == 200 && packed.headers["content-encoding"] == "gzip" && packed.headers["vary"] == "Accept-Encoding", "\(path)")
            #expect(try Self.gunzip(packed.body, in: scratch) == plain.body, "\(path)")
        }
        // A sync answer is left as it is (a device hashes the journal's lines it pulls).
        let pulled = try RawHTTP.exchange(port: hub.port, Array(("POST /v1/households/\(household)/sync HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            + "Authorization: Bearer \(token)\r\nAccept-Encoding: gzip\r\nContent-Length: \(HubHTTPOperationTests.emptyPull.count)\r\n\r\n").utf8) + HubHTTPOperationTests.emptyPull)
        #expect(pulled.status == 200 && pulled.headers["content-encoding"] == nil)
    }

    /// A browser names a device in a path percent-encoded ("Ana's phone" is `Ana's%20phone`): revoked all the same.
    @Test func aDeviceWhoseNameHasSpacesIsRevokedByItsName() async throws {
        let scratch = ToolRunner()
        defer { scratch.remove() }
        let hub = try HubProcess(data: scratch.path("data"))
        defer { _ = hub.terminate() }
        let made = try await HTTP.call("POST", "\(hub.base)/v1/households", json: ["device": "Ana's phone", "actor": "ana"])
        let household = try #require(made.json["household"] as? String), token = try #require(made.json["token"] as? String)
        let revoked = try await HTTP.call("DELETE", "\(hub.base)/v1/households/\(household)/devices/Ana's%20phone", token: token)
        #expect(revoked.status == 204)
        #expect(try await HTTP.call("GET", "\(hub.base)/v1/households/\(household)/devices", token: token).status == 401)
    }

    /// A phone revoked while its long poll waits hears 401 at once (the revoke wakes the household's polls), not when
    /// its wait ends: the web app says so and goes back to the start screen (docs/APP.md).
    @Test func aRevokedPhonesWaitingPollEndsAtOnce() async throws {
        let scratch = ToolRunner()
        defer { scratch.remove() }
        let hub = try HubProcess(data: scratch.path("data"))
        defer { _ = hub.terminate() }
        let (household, owner) = try await HubHTTPOperationTests.newHousehold(hub.base)
        let base = "\(hub.base)/v1/households/\(household)"
        let invite = try await HTTP.call("POST", "\(base)/invites", token: owner, json: ["actor": "ben"])
        let code = try #require(invite.json["code"] as? String)
        let joined = try await HTTP.call("POST", "\(hub.base)/v1/join", json: ["code": code, "device": "Ben's phone"])
        let token = try #require(joined.json["token"] as? String)
        let started = ContinuousClock.now
        async let poll = HTTP.call("POST", "\(base)/sync", token: token,
                                   body: Array(#"{"pull":{"after":0,"hash":"\#(HubHTTPOperationTests.zeros)","wait":30}}"#.utf8))
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await HTTP.call("DELETE", "\(base)/devices/Ben's%20phone", token: owner).status == 204)
        let answer = try await poll
        #expect(answer.status == 401 && answer.errorCode == "unauthorized")
        #expect(started.duration(to: .now) < .seconds(10), "answered when revoked, not after its 30 s wait")
        // The owner's own poll is not ended by it: it waits on (answered with no line after a short wait).
        let own = try await HTTP.call("POST", "\(base)/sync", token: owner,
                                      body: Array(#"{"pull":{"after":0,"hash":"\#(HubHTTPOperationTests.zeros)","wait":0.2}}"#.utf8))
        #expect(own.status == 200)
    }

    static func gunzip(_ bytes: [UInt8], in scratch: ToolRunner) throws -> [UInt8] {
        let path = scratch.path("body.gz")
        Scratch.write(bytes, to: path)
        let result = try scratch.run(["-dc", path], executable: "/bin/gzip")
        return Array(result.stdout.utf8)
    }
}
