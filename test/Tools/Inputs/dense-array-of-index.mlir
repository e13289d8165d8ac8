// A dense array of `index` elements, on which MLIR 22's parser crashes
// (Parser::parseDenseArrayAttr asks `index` for its bit width): the tools refuse
// it before parsing. test/Tools/hostile-input-errors.test
module attributes {graph.sizes = array<index: 1, 2>} {}
