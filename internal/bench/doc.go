// Package bench is "gosh bench": it measures gosh on the machine it runs
// on. Micro-benchmarks time the hot paths (OCB sealing and opening beside
// Go's AES-GCM, a screen update through the SSP transport, the emulator on
// four workloads, the display differ) with the inputs the packages' own go
// test benchmarks use. Simulations run two SSP transports over an emulated
// lossy, delayed link in simulated time and measure the Age of Information
// of the client's screen under Mosh's reference-state rule and the λ
// variant (ssp.Config.KnownStateProbability).
//
// bench is an I/O package: it reads the clock and writes reports.
package bench
