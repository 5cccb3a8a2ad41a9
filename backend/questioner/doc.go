// Package questioner writes retrieval questions from a library's own pages, offline: each question keeps the page that answers it, so it is a labelled example for training and measuring search.
package questioner
