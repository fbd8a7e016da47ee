package convmemory

// EncodeTurn is how a turn is stored as a level-0 node's text.
var EncodeTurn = encodeTurn
