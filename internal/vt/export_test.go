package vt

// RandomOutputForTest exposes randomOutput to the external test package.
var RandomOutputForTest = randomOutput
