/// What the comparison measures, for one hub.
struct Figures {
    var pushesPerSecond = 0.0
    var commandsPerSecond = 0.0
    var manyPushesPerSecond = 0.0
    var manyCommandsPerSecond = 0.0
    var pullLinesPerSecond = 0.0
    var syncP50 = 0.0, syncP99 = 0.0
}
