test_that("dp_power_t_test gives Python's mean_power and mean_sample_size, number for number", {
  skip_without_dpinfer()
  py <- reticulate::import("dpinfer", convert = FALSE)  # the planning result, not its number
  x <- dp_power_t_test(n = 100, mu1 = 128, mu = 120, sd = 15, lower = 80, upper = 180, epsilon = 1)
  ref <- reticulate::py_to_r(py$mean_power(128, 100L, mu0 = 120, sigma = 15, lower = 80, upper = 180,
                                           epsilon = 1)$to_dict())
  expect_s3_class(x, "power.htest")
  expect_identical(x$power, ref$power)
  expect_identical(x$nonprivate.power, ref$nonprivate_power)
  expect_identical(x$price.power, ref$price_power)
  expect_null(x$mc.se)
  # the textbook comparator is the z test without noise or clipping, computed here in R:
  # power.t.test(n = 100, delta = 8, sd = 15, type = "one.sample") is the t test's, 0.99955 (its
  # t quantile is wider than z's), so the z formula is the reference
  z <- qnorm(0.975)
  shift <- 8 * sqrt(100) / 15
  expect_equal(x$normal.power, pnorm(shift - z) + pnorm(-shift - z), tolerance = 1e-12)
  expect_lt(power.t.test(n = 100, delta = 8, sd = 15, type = "one.sample")$power, x$normal.power)

  two <- dp_power_t_test(mu1 = 128, mu2 = 120, sd = c(15, 20), lower = 80, upper = 180, epsilon = 1,
                         power = 0.8, ratio = 2)
  ref <- reticulate::py_to_r(py$mean_sample_size(128, mu2 = 120, sigma = list(15, 20), lower = 80, upper = 180, epsilon = 1,
                             ratio = 2)$to_dict())
  expect_identical(two$n, c(ref$n1, ref$n2))
  expect_identical(two$nonprivate.n, c(ref$nonprivate_n1, ref$nonprivate_n2))
  expect_identical(two$price.total, ref$price_total)
  # the textbook n per group: (sd1^2 + sd2^2 / ratio) (z_alpha/2 + z_beta)^2 / delta^2
  expect_equal(two$normal.n[1], (15^2 + 20^2 / 2) * (qnorm(0.975) + qnorm(0.8))^2 / 8^2, tolerance = 1e-12)
  out <- capture.output(print(two))
  expect_true(any(grepl("^ +n = 89, 178$", out)))
  expect_true(any(grepl("^ +price.total = ", out)))
})

test_that("dp_power_t_test plans DP-JIMI, mean_test's default method, as Python does", {
  skip_without_dpinfer()
  py <- reticulate::import("dpinfer", convert = FALSE)
  x <- dp_power_t_test(mu1 = 130, mu = 120, sd = 15, lower = 80, upper = 180, epsilon = 1, power = 0.8,
                       method = "jimi")
  ref <- reticulate::py_to_r(py$mean_sample_size(130, mu0 = 120, sigma = 15, lower = 80, upper = 180, epsilon = 1,
                                                 method = "jimi")$to_dict())
  expect_identical(x$n, ref$n1)
  expect_identical(x$nonprivate.n, ref$nonprivate_n)
  expect_match(x$method, "DP-JIMI")
})

test_that("dp_power_t_test simulates with the spread released, seeded and stated", {
  skip_without_dpinfer()
  py <- reticulate::import("dpinfer", convert = FALSE)  # the planning result, not its number
  x <- dp_power_t_test(n = 50, mu1 = 128, mu = 120, sd = 15, lower = 80, upper = 180, epsilon = 1,
                       spread = TRUE, alternative = "one.sided", n.sim = 500, seed = 3)
  ref <- reticulate::py_to_r(py$mean_power(128, 50L, mu0 = 120, sigma = 15, lower = 80, upper = 180, epsilon = 1, spread = TRUE,
                       alternative = "greater", n_sim = 500L, rng = 3L)$to_dict())
  expect_identical(x$alternative, "greater")
  expect_identical(x$power, ref$power)
  expect_identical(x$mc.se, ref$mc_se)
  expect_equal(x$mc.se, sqrt(x$power * (1 - x$power) / 500), tolerance = 1e-12)
  expect_identical(dp_power_t_test(n = 50, mu1 = 128, mu = 120, sd = 15, lower = 80, upper = 180, epsilon = 1,
                                   spread = TRUE, n.sim = 500)$power,
                   dp_power_t_test(n = 50, mu1 = 128, mu = 120, sd = 15, lower = 80, upper = 180, epsilon = 1,
                                   spread = TRUE, n.sim = 500)$power)
})

test_that("dp_power_t_test refuses what power.t.test would solve for and mixed nulls", {
  skip_without_dpinfer()
  args <- list(mu1 = 128, sd = 15, lower = 80, upper = 180, epsilon = 1)
  expect_error(do.call(dp_power_t_test, c(args, list(n = 10, power = 0.8))), "exactly one of `n` and `power`")
  expect_error(do.call(dp_power_t_test, args), "exactly one of `n` and `power`")
  expect_error(dp_power_t_test(n = 10, sd = 15, lower = 80, upper = 180, epsilon = 1), "`mu1` and `sd` must be given")
  expect_error(do.call(dp_power_t_test, c(args, list(n = 10, sig.level = NULL))), "NULL \\(solve for it")
  expect_error(do.call(dp_power_t_test, c(args, list(n = 10, mu2 = 120, mu = 1))), "with `mu2` give `margin`")
  expect_error(do.call(dp_power_t_test, c(args, list(n = 10, margin = 1))), "`margin` is the null difference")
  expect_error(do.call(dp_power_t_test, c(args, list(n = 10.5))), "`n` must be one whole number")
  # Python's own checks come through, naming the argument
  expect_error(dp_power_t_test(n = 10, mu1 = 128, sd = 15, lower = 180, upper = 80, epsilon = 1), "lower")
})
