import Foundation
import Testing
import ShopTestSupport

/// A real browser renders the demo's report: headless Chromium takes
/// screenshots at a phone's and a desktop's width, and the charts' colours
/// must be there in quantity (bars, columns, calendar squares). Skipped with a
/// message where no Chromium is installed; `.ci/run` installs Debian's.
@Suite struct ReportBrowserTests {
    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Counts pixels of given colours in a PNG (8-bit RGB or RGBA, any filter), with zlib only.
    static let countPixels = #"""
    import struct, sys, zlib
    data = open(sys.argv[1], 'rb').read(); pos = 8; idat = b''
    while pos < len(data):
        n, = struct.unpack('>I', data[pos:pos+4]); kind = data[pos+4:pos+8]; body = data[pos+8:pos+8+n]; pos += 12 + n
        if kind == b'IHDR': w, h, depth, ct = struct.unpack('>IIBB', body[:10])
        elif kind == b'IDAT': idat += body
    bpp = {2: 3, 6: 4}[ct]; raw = zlib.decompress(idat); stride = w * bpp
    targets = [tuple(int(c[i:i+2], 16) for i in (0, 2, 4)) for c in sys.argv[2:]]
    counts = [0] * len(targets); prev = bytearray(stride); i = 0
    for y in range(h):
        f = raw[i]; line = bytearray(raw[i+1:i+1+stride]); i += 1 + stride
        for x in range(stride):
            a = line[x-bpp] if x >= bpp else 0; b = prev[x]; c = prev[x-bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, bpp):
            px = tuple(line[x:x+3])
            for k, t in enumerate(targets):
                if all(abs(px[j] - t[j]) <= 6 for j in range(3)): counts[k] += 1
        prev = line
    print(' '.join(map(str, counts)))
    """#

    @Test(.enabled(if: chromium != nil && python != nil,
                   "skipped: no Chromium (or no python3) on this machine — `apt-get install -y chromium` to render the report in a real browser"))
    func theDemoReportDrawsItsChartsAtPhoneAndDesktopWidths() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let demo = try tool.run(["demo"])
        #expect(demo.status == 0)
        let report = tool.path("shop-demo.report.html")
        let size = Scratch.bytes(report).count
        #expect(size > 10_000 && size < 1_000_000, "the demo's report is \(size) bytes")
        Scratch.write(Array(Self.countPixels.utf8), to: tool.path("count.py"))
        // Half the device scale: a quarter of the pixels for the (pure Python) count; the charts are in the first screens.
        for (name, size) in [("phone", "390,3600"), ("desktop", "1280,2400")] {
            let shot = tool.path("\(name).png")
            let run = try tool.run(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=0.5",
                                    "--window-size=\(size)",
                                    "--screenshot=\(shot)", "file://\(report)"], executable: Self.chromium!)
            #expect(run.status == 0, "\(run.stderr)")
            // The bar colour (#1f5f99) and the two darkest calendar shades (#2f72b0, #0b3d6e).
            let counted = try tool.run([tool.path("count.py"), shot, "1f5f99", "2f72b0", "0b3d6e"], executable: Self.python!)
            let counts = counted.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            #expect(counts.count == 3, "\(counted.stderr)")
            guard counts.count == 3 else { continue }
            // Measured: about 18,000 and 24,000 pixels of bars; 600 and 1,200 of dark calendar squares (drawn at most 1.4 times their units).
            #expect(counts[0] > 5_000, "\(name): \(counts[0]) pixels of bars and columns")
            #expect(counts[1] + counts[2] > 200, "\(name): \(counts[1] + counts[2]) pixels of busy calendar days")
        }
    }
}
