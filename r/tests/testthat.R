library(testthat)
library(dpinfer)

test_check("dpinfer")
