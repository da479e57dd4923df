// Copyright 2019 The Kubernetes Authors.
// SPDX-License-Identifier: Apache-2.0

package krmfile

// KRMFileName is the file where Krm metadata is stored
const (
	// KrmfileName is the name of the file that KRM metadata is written to
	KrmfileName = "Krmfile"
)
