import Foundation

/// `hub-bench open`'s tables for one storage: the latencies side by side with their ratios, and the hub's memory.
struct OpenTable {
    let storage: String
    let devices: Int
    let processes: Int

    /// `healthz`: with no poll open, as the polls arrive, and with every poll waiting (after the wakes).
    func latencies(quiet: [Double], open: [Double], wakes: [OpenPolls.Wake], healthz: (quiet: [Double], arriving: [Double], open: [Double])) {
        let healthQuiet = healthz.quiet, healthOpen = healthz.open
        func f(_ ms: Double) -> String { String(format: "%.2f", ms) }
        func row(_ name: String, _ values: [Double]) {
            say("| \(name) | \(values.count) | \(f(percentile(values, 0.5))) | \(f(percentile(values, 0.99))) | \(f(values.max() ?? 0)) |")
        }
        // A device may have its answer before the pusher reads the push's: the hub wakes the polls as it answers.
        let fromAnswer = wakes.map { max(0, $0.fromAnswer) }, early = wakes.filter { $0.fromAnswer < 0 }.count
        say("")
        say("### \(storage): \(devices) open polls")
        say("")
        say("| measure | n | p50 ms | p99 ms | max ms |")
        say("|---|---:|---:|---:|---:|")
        row("push → its answer, no poll open", quiet)
        row("push → its answer, \(devices) polls open", open)
        row("wake: push answered → device answered", fromAnswer)
        row("wake: push written → device answered", wakes.map(\.fromRequest))
        if processes > 1 {
            row("wake, same process: push answered → device answered", wakes.filter { !$0.crossProcess }.map { max(0, $0.fromAnswer) })
            row("wake, other process (NOTIFY): push answered → device answered", wakes.filter(\.crossProcess).map { max(0, $0.fromAnswer) })
            row("wake, other process (NOTIFY): push written → device answered", wakes.filter(\.crossProcess).map(\.fromRequest))
        }
        row("GET /healthz, fresh connection, no poll open", healthQuiet)
        row("GET /healthz, fresh connection, as the \(devices) polls arrive", healthz.arriving)
        row("GET /healthz, fresh connection, \(devices) polls waiting (after the wakes)", healthOpen)
        say("")
        let ratio = { (a: Double, b: Double) in String(format: "%.1f×", a / max(b, 1e-9)) }
        say("ratios: wake p99 (from the push's answer) ÷ /healthz p99, polls waiting: "
            + "\(ratio(percentile(fromAnswer, 0.99), percentile(healthOpen, 0.99))); "
            + "push p50 with \(devices) polls open ÷ with none: \(ratio(percentile(open, 0.5), percentile(quiet, 0.5))), "
            + "p99: \(ratio(percentile(open, 0.99), percentile(quiet, 0.99))); "
            + "/healthz p99 polls waiting ÷ none: \(ratio(percentile(healthOpen, 0.99), percentile(healthQuiet, 0.99))); "
            + "wakes before the pusher read its answer: \(early) of \(wakes.count)")
    }

    /// The hub process(es) at each stage, and what an open device costs.
    func memory(_ stages: [(String, ProcessFigures)]) {
        say("")
        say("| hub process\(processes > 1 ? "es (summed)" : "") | RSS MiB | open files | threads | CPU s used so far |")
        say("|---|---:|---:|---:|---:|")
        for (name, figures) in stages {
            say("| \(name) | \(String(format: "%.1f", figures.residentKiB / 1024)) | \(figures.files) | \(figures.threads) | \(String(format: "%.1f", figures.cpuSeconds)) |")
        }
        guard stages.count >= 4 else { return }
        let perDevice = { (from: ProcessFigures, to: ProcessFigures) in String(format: "%.1f", (to.residentKiB - from.residentKiB) / Double(max(1, devices))) }
        say("")
        say("memory per open device: \(perDevice(stages[0].1, stages[3].1)) KiB (RSS with the polls waiting − with no device connected, ÷ \(devices)); "
            + "of it the connection \(perDevice(stages[0].1, stages[1].1)) KiB, its hello \(perDevice(stages[1].1, stages[2].1)) KiB, "
            + "the waiting poll \(perDevice(stages[2].1, stages[3].1)) KiB")
    }
}
