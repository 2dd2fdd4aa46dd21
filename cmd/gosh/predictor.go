package main

import "github.com/gosh-term/gosh/internal/session"

// newPredictor builds the speculative echo engine for --predict. Until
// internal/predict lands, the client shows only what the server confirmed.
func newPredictor(o *ConnectOptions) (session.Predictor, error) {
	return nil, nil
}
