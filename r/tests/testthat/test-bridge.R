test_that("Python errors surface as R errors carrying the Python message", {
  skip_without_dpinfer()
  expect_error(dp_binom_test(12.7, 30, epsilon = -1),
               "`epsilon` must be a positive finite number; got -1.0.", fixed = TRUE)
  # named as the R user typed it (issue 40)
  expect_error(dp_binom_test(12.7, 30, conf.level = 1.5, epsilon = 1), "`conf.level` must lie in", fixed = TRUE)
  expect_error(dp_release_count(31, 30, epsilon = 1, seed = 1), "`x` must lie between 0 and `n` = 30; the value does not.", fixed = TRUE)
})

test_that("Python warnings surface as R warnings", {
  skip_without_dpinfer()
  expect_warning(dp_binom_test(0.4, 30, epsilon = 1), "InputWarning: .*read as a noisy count")
})

test_that("a missing Python names the one install command: the source checkout's, not a registry's", {
  rscript <- file.path(R.home("bin"), "Rscript")
  env <- c(paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)),
           "RETICULATE_PYTHON=/nonexistent/python3")
  out <- suppressWarnings(system2(rscript, c("-e", shQuote("dpinfer::dp_binom_test(1, 2, epsilon = 1)")),
                                  env = env, stdout = TRUE, stderr = TRUE))
  text <- paste(out, collapse = "\n")
  expect_match(text, "python3 -m pip install -e /path/to/dpinfer", fixed = TRUE)
  expect_false(grepl("pip install dpinfer", text, fixed = TRUE))  # no registry has dpinfer
  expect_match(text, "RETICULATE_PYTHON", fixed = TRUE)
  expect_false(suppressWarnings(system2(rscript, c("-e", shQuote("cat(dpinfer::dp_available())")),
                                        env = env, stdout = TRUE)) == "TRUE")
})

test_that("tidy() gives broom's columns plus the privacy parameters", {
  skip_without_dpinfer()
  skip_if_not_installed("broom")
  res <- dp_binom_test(dp_release_count(11, 30, epsilon = 1, seed = 1), p = 0.2)
  tidied <- broom::tidy(res)
  expect_identical(tidied$p.value, res$p.value)
  expect_identical(c(tidied$conf.low, tidied$conf.high), as.numeric(res$conf.int))
  expect_identical(tidied$epsilon, 1)
  expect_identical(tidied$mechanism, "tulap")
})

test_that("a bad confidential count is described, never shown", {
  skip_without_dpinfer()
  err <- tryCatch(dp_release_count(11.25, 30, epsilon = 1), error = conditionMessage)
  expect_match(err, "`x` must be one whole number", fixed = TRUE)
  expect_false(grepl("11.25", err, fixed = TRUE))
  err <- tryCatch(dp_release_table(matrix(c(40, 15.5, 10, 35), 2), epsilon = 1), error = conditionMessage)
  expect_match(err, "row 2 does not", fixed = TRUE)
  expect_false(grepl("15.5", err, fixed = TRUE))
})
