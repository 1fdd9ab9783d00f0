test_that("two arms equal Python's prop_test and binom2_ump_test for the same seeded releases", {
  skip_without_dpinfer()
  a1 <- dp_release_count(41, 60, epsilon = 1, seed = 1)
  a2 <- dp_release_count(27, 60, epsilon = 1, seed = 2)
  res <- dp_prop_test(list(a1, a2))
  py <- py_dpinfer()
  ref <- py$binom2_ump_test(py_release(41, 60, 1, 1), py_release(27, 60, 1, 2))
  expect_identical(res$p.value, ref$pvalue)
  expect_identical(as.numeric(res$conf.int), c(ref$conf_int$low, ref$conf_int$high))
  expect_identical(unname(res$estimate), ref$estimate)
  expect_identical(res$alternative, "two.sided")
  ni <- dp_prop_test(list(a1, a2), margin = -0.1, alternative = "greater", conf.level = 0.9)
  ref_ni <- py$binom2_ump_test(py_release(41, 60, 1, 1), py_release(27, 60, 1, 2), margin = -0.1,
                               alternative = "greater", confidence_level = 0.9)
  expect_identical(ni$p.value, ref_ni$pvalue)
  expect_identical(as.numeric(ni$conf.int), c(ref_ni$conf_int$low, ref_ni$conf_int$high))
})

test_that("released values typed in: prop.test(c(x1, x2), c(n1, n2)) form", {
  skip_without_dpinfer()
  res <- dp_prop_test(c(40.9092, 26.55515), c(60, 60), epsilon = 1)
  ref <- py_dpinfer()$binom2_ump_test(40.9092, 60L, 26.55515, 60L, epsilon = 1)
  expect_identical(res$p.value, ref$pvalue)
  expect_identical(as.numeric(res$conf.int), c(ref$conf_int$low, ref$conf_int$high))
  ratio <- dp_prop_test(c(40.9092, 26.55515), c(60, 60), epsilon = c(1, 1), effect = "ratio")
  ref_ratio <- py_dpinfer()$binom2_ump_test(40.9092, 60L, 26.55515, 60L, epsilon = 1, effect = "ratio")
  expect_identical(ratio$p.value, ref_ratio$pvalue)
  expect_error(dp_prop_test(c(40.9092, 26.55515), 60, epsilon = 1), "one size per released value")
})

test_that("one arm: DP-UMP for Tulap, DP-JIMI and the normal approximation for Laplace", {
  skip_without_dpinfer()
  py <- py_dpinfer()
  rel <- dp_release_count(11, 30, epsilon = 1, seed = 1)
  expect_identical(dp_prop_test(rel, p = 0.2)$p.value,
                   py$binom_ump_test(py_release(11, 30, 1, 1), 0.2)$pvalue)
  lap <- dp_release_count(11, 30, epsilon = 1, mechanism = "laplace", seed = 4)
  ref_lap <- py$LaplaceReleaser(1)$proportion(11L, 30L, rng = 4L)
  expect_identical(lap$value, ref_lap$value)
  jimi <- dp_prop_test(lap, p = 0.2, method = "jimi", alternative = "less")
  expect_identical(jimi$p.value, py$binom_jimi_test(ref_lap, 0.2, alternative = "less")$pvalue)
  normal <- dp_prop_test(lap, p = 0.2, method = "normal")
  expect_identical(normal$p.value, py$binom_normal_test(ref_lap, 0.2)$pvalue)
  drawn <- dp_prop_test(lap, p = 0.2, method = "jimi", n.sim = 2000, seed = 7)
  expect_identical(drawn$p.value, py$binom_jimi_test(ref_lap, 0.2, n_sim = 2000L, rng = 7L)$pvalue)
  expect_identical(dp_privacy(drawn)$n.sim, 2000L)
  # typed-in values are released counts for every method (one unit for `x`): 13.215 of 30
  typed <- dp_prop_test(13.215, 30, p = 0.2, method = "normal", epsilon = 1)
  expect_identical(typed$p.value, py$binom_normal_test(13.215 / 30, 30L, 0.2, epsilon = 1)$pvalue)
})

test_that("two typed-in counts read as counts by every method; sig.level = NULL and n >= 2^31 refused", {
  skip_without_dpinfer()
  py <- py_dpinfer()
  jimi <- dp_prop_test(c(41.3, 27.2), c(60, 60), epsilon = 1, method = "jimi", n.sim = 500, seed = 1)
  ref <- py$prop_test(list(41.3 / 60, 27.2 / 60), list(60L, 60L), epsilon = 1, method = "jimi",
                      n_sim = 500L, rng = 1L)
  expect_identical(jimi$p.value, ref$pvalue)
  expect_error(dp_power_prop_test(n = 60, p1 = .65, p2 = .45, sig.level = NULL, epsilon = 1),
               "`sig.level` must be a significance level")
  # 2^31 arrives in Python as a whole number (not NA, not -2147483648)
  expect_error(dp_binom_test(1e9 + 0.5, 2^31, epsilon = 1, p = 0.2), NA)
  expect_error(dp_binom_test(1.5, 2^60, epsilon = 1, p = 0.2), "`n` must be an integer <= 9007199254740992")
  expect_error(dp_binom_test(11.2, 30, p = 2, epsilon = 1), "`p` must lie in")
})

test_that("a Tulap release given to the normal approximation is refused with Python's message", {
  skip_without_dpinfer()
  rel <- dp_release_count(11, 30, epsilon = 1, seed = 1)
  expect_error(dp_prop_test(rel, p = 0.2, method = "normal"), "ValueError: `release` is a Tulap release")
})

test_that("whole numbers typed as releases are refused as confidential counts, naming the release step", {
  skip_without_dpinfer()
  # R's habit prop.test(c(23, 12), c(60, 58)): the confidential counts, not releases
  err <- tryCatch(dp_prop_test(c(23, 12), c(60, 58), epsilon = 1), error = conditionMessage)
  expect_match(err, "looks like the confidential count", fixed = TRUE)
  expect_match(err, "dp_release_count(x, n, epsilon = ...), and pass the release", fixed = TRUE)
  expect_false(grepl("23", err, fixed = TRUE))
  expect_error(dp_binom_test(11, 30, epsilon = 1), "dp_release_count(x, n, epsilon = ...)", fixed = TRUE)
  # typed values are counts for every method (divided by n for the normal approximation)
  expect_error(dp_prop_test(15, 30, method = "normal", epsilon = 1),
               'dp_release_count(x, n, epsilon = ..., mechanism = "laplace")', fixed = TRUE)
  # a real release's printed digits pass: the value printed by print(rel), typed back
  rel <- dp_release_count(11, 30, epsilon = 1, seed = 1)
  printed <- paste(capture.output(print(rel)), collapse = "\n")
  typed <- as.numeric(sub("value: +", "", regmatches(printed, regexpr("value: +[-0-9.e+]+", printed))))
  expect_equal(typed, rel$value, tolerance = 1e-15)  # R's reader may differ in the last bit
  expect_equal(dp_binom_test(typed, 30, epsilon = 1)$p.value, dp_binom_test(rel)$p.value, tolerance = 1e-12)
})
