package main

import (
	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/session"
)

// newPredictor builds the speculative echo engine for --predict (already
// resolved against MOSH_PREDICTION_DISPLAY by the flag parsing); "never"
// means no engine at all, as in mosh.
func newPredictor(o *ConnectOptions) (session.Predictor, error) {
	mode, err := predict.ParseMode(o.Predict)
	if err != nil {
		return nil, err
	}
	if mode == predict.Never {
		return nil, nil
	}
	return predict.NewEngine(mode, o.PredictOverwrite), nil
}
