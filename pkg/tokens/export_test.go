package tokens

// ReferenceCounter exposes tiktoken-go's counter to the parity tests.
var ReferenceCounter = referenceCounter
