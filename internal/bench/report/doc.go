// Package report writes the results of "gosh bench typing": one [Row] per
// transport (ssh, gosh, gosh without prediction, stock mosh) as an aligned
// text table ([WriteTable]) and as JSON ([WriteJSON]), and the
// distribution of keystroke response times as a standalone SVG chart
// ([WriteCDF]) in the manner of Figure 2 of Winstein and Balakrishnan,
// "Mosh: An Interactive Remote Shell for Mobile Clients" (USENIX ATC
// 2012): the cumulative fraction of keystrokes shown within a given time,
// on a logarithmic time axis, one curve per transport.
//
// The package computes no statistics: the caller fills each Row from its
// measurement (internal/bench/keylat's Stats holds the same figures).
// Latencies are per keystroke, negative for a keystroke never shown.
//
// The SVG needs nothing outside itself (no stylesheet, font or script), so
// a browser shows it as it is. Each curve is an SVG path and nothing else
// is drawn as a path (axes, grid and legend are lines, rects and text), so
// a reader can find the curves.
package report
