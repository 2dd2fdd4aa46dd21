package sshconfig

import (
	"errors"
	"strings"
)

// matchPattern reports whether s matches pattern, where '*' matches any
// run of characters and '?' exactly one, case-insensitively (hostnames and
// user names are compared the way OpenSSH's match_pattern does for hosts).
// It runs in O(len(s)*len(pattern)) at worst.
func matchPattern(s, pattern string) bool {
	s, pattern = strings.ToLower(s), strings.ToLower(pattern)
	si, pi := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(pattern) && (pattern[pi] == '?' || pattern[pi] == s[si]):
			si++
			pi++
		case pi < len(pattern) && pattern[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(pattern) && pattern[pi] == '*' {
		pi++
	}
	return pi == len(pattern)
}

// matchHostPatterns applies the patterns of one Host line: the line matches
// when some pattern matches and no negated ("!pattern") one does.
func matchHostPatterns(host string, patterns []string) bool {
	matched := false
	for _, p := range patterns {
		if neg, ok := strings.CutPrefix(p, "!"); ok {
			if matchPattern(host, neg) {
				return false
			}
			continue
		}
		if matchPattern(host, p) {
			matched = true
		}
	}
	return matched
}

// matchPatternList applies a comma-separated pattern list as used by Match
// criteria, with the same negation rule as [matchHostPatterns].
func matchPatternList(s, list string) bool {
	return matchHostPatterns(s, strings.Split(list, ","))
}

// errUnterminatedQuote is returned for a config line with an open quote.
var errUnterminatedQuote = errors.New("unterminated quote")

// splitConfigArgs splits the arguments of an ssh_config line the way
// OpenSSH's argv_split does: words separated by blanks, double or single
// quotes group words (the quotes are removed), a backslash escapes a quote,
// a backslash or a blank, and a '#' that starts a word begins a comment.
func splitConfigArgs(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == 0 && (c == ' ' || c == '\t'):
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		case quote == 0 && c == '#' && !inWord:
			return args, nil
		case c == '\\' && i+1 < len(s) && strings.IndexByte(`"'\ `, s[i+1]) >= 0:
			i++
			cur.WriteByte(s[i])
			inWord = true
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
			inWord = true
		case quote != 0 && c == quote:
			quote = 0
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errUnterminatedQuote
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args, nil
}

// splitKeyword separates "Keyword value", "Keyword=value" or
// "Keyword = value" into the lower-cased keyword and the rest.
func splitKeyword(line string) (keyword, rest string) {
	end := strings.IndexAny(line, " \t=")
	if end < 0 {
		return strings.ToLower(line), ""
	}
	keyword = strings.ToLower(line[:end])
	rest = strings.TrimLeft(line[end:], " \t")
	if r, ok := strings.CutPrefix(rest, "="); ok {
		rest = strings.TrimLeft(r, " \t")
	}
	return keyword, rest
}
