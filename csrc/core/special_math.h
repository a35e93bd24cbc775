// The special functions of torch.special beyond the gamma family (Bessel and Airy
// functions, erfcx, the orthogonal polynomials): one definition for the CPU loops
// (csrc/cpu/elementwise_loops.h) and the CUDA kernels (csrc/cuda/elementwise_ops.cu),
// as core/elementwise_math.h is for the rest of the maths API.
//
// The Bessel, Airy and K functions are Cephes' rational and Chebyshev approximations
// (public domain, Stephen L. Moshier), evaluated as torch evaluates them: torch's
// loops take every denominator's coefficients with Horner's rule from 0, not with
// Cephes' implicit leading 1 (p1evl), which makes its j0/j1/y0/y1 good to about 1e-8
// rather than to the last ulp -- aakaar follows torch, so that results agree with it
// to rounding. They are computed in double for every dtype (float32 rounds once at the
// end). erfcx is exp(x^2) erfc(x) with x^2 split exactly (fma), and a continued
// fraction past 26, where erfc underflows. The polynomials are torch's recurrences in
// the tensor's own dtype, with n read as an integer (torch's cast).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/backend.h"
#include "core/elementwise_math.h"
#include "core/host_device.h"

namespace aakaar::emath {
namespace {

constexpr double kInvSqrtPi = 5.64189583547756286948e-01;     // 1 / sqrt(pi)
constexpr double kSqrt2OverPi = 0.797884560802865355879892119868763737;
constexpr double kTwoOverPi = 0.636619772367581343075535053490057448;
constexpr double kPiOver4 = 0.785398163397448309615660845819875721;
constexpr double k3PiOver4 = 2.356194490192344928846982537459627163;

AK_HD double nan_d() { return std::numeric_limits<double>::quiet_NaN(); }
AK_HD double inf_d() { return std::numeric_limits<double>::infinity(); }

// c[0] z^(n-1) + ... + c[n-1], Horner's rule from 0 (torch's loops).
AK_HD double horner(double z, const double* c, int n) {
  double r = 0.0;
  for (int i = 0; i < n; ++i) r = r * z + c[i];
  return r;
}

// Cephes' chbevl: the Chebyshev series sum' c_i T_i(x / 2) by Clenshaw's recurrence.
AK_HD double chbevl(double x, const double* c, int n) {
  double b0 = c[0], b1 = 0.0, b2 = 0.0;
  for (int i = 1; i < n; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = x * b1 - b2 + c[i];
  }
  return 0.5 * (b0 - b2);
}

// ---- Airy function Ai --------------------------------------------------------------
// Below -2.09 the oscillating asymptotic form, from 2.09 the decaying one, between
// them the Maclaurin series Ai = c1 f(x) - c2 g(x). NaN at both infinities (torch's).
AK_HD double airy_ai(double x) {
  const double AN[8] = {
      +3.46538101525629032477e-01, +1.20075952739645805542e+01, +7.62796053615234516538e+01,
      +1.68089224934630576269e+02, +1.59756391350164413639e+02, +7.05360906840444183113e+01,
      +1.40264691163389668864e+01, +9.99999999999999995305e-01};
  const double AD[8] = {
      +5.67594532638770212846e-01, +1.47562562584847203173e+01, +8.45138970141474626562e+01,
      +1.77318088145400459522e+02, +1.64234692871529701831e+02, +7.14778400825575695274e+01,
      +1.40959135607834029598e+01, +1.00000000000000000470e+00};
  if (fabs(x) == inf_d()) return nan_d();
  if (x > 103.892) return 0.0;
  if (x < -2.09) {
    const double AFN[9] = {
        -1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
        -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
        -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08};
    const double AFD[9] = {
        +1.33560420706553243746e+01, +3.26825032795224613948e+01, +2.67367040941499554804e+01,
        +9.18707402907259625840e+00, +1.47529146771666414581e+00, +1.15687173795188044134e-01,
        +4.40291641615211203805e-03, +7.54720348287414296618e-05, +4.51850092970580378464e-07};
    const double AGN[11] = {
        +1.97339932091685679179e-02, +3.91103029615688277255e-01, +1.06579897599595591108e+00,
        +9.39169229816650230044e-01, +3.51465656105547619242e-01, +6.33888919628925490927e-02,
        +5.85804113048388458567e-03, +2.82851600836737019778e-04, +6.98793669997260967291e-06,
        +8.11789239554389293311e-08, +3.41551784765923618484e-10};
    const double AGD[10] = {
        +9.30892908077441974853e+00, +1.98352928718312140417e+01, +1.55646628932864612953e+01,
        +5.47686069422975497931e+00, +9.54293611618961883998e-01, +8.64580826352392193095e-02,
        +4.12656523824222607191e-03, +1.01259085116509135510e-04, +1.17166733214413521882e-06,
        +4.91834570062930015649e-09};
    const double zeta = -2.0 * x * sqrt(-x) / 3.0, z = 1.0 / zeta, zz = z * z;
    const double t = zeta + 0.25 * pi_<double>();
    const double f = 1.0 + zz * horner(zz, AFN, 9) / horner(zz, AFD, 9);
    const double g = z * horner(zz, AGN, 11) / horner(zz, AGD, 10);
    return kInvSqrtPi / sqrt(sqrt(-x)) * (sin(t) * f - cos(t) * g);
  }
  if (x >= 2.09) {
    const double zeta = 2.0 * x * sqrt(x) / 3.0;
    return kInvSqrtPi * (horner(1.0 / zeta, AN, 8) / horner(1.0 / zeta, AD, 8)) / (2.0 * sqrt(sqrt(x)) * exp(zeta));
  }
  // f = sum 3^k (1/3)_k x^3k / (3k)!, g = sum 3^k (2/3)_k x^(3k+1) / (3k+1)!, term by term.
  double f = 1.0, g = x, m = 1.0, n = x, k = 1.0, t = 1.0;
  const double z = x * x * x;
  while (t > std::numeric_limits<double>::epsilon()) {
    m *= z;
    k += 1.0;
    m /= k;
    n *= z;
    k += 1.0;
    n /= k;
    m /= k;
    f += m;
    k += 1.0;
    n /= k;
    g += n;
    t = fabs(m / f);
  }
  return 0.355028053887817239260 * f - 0.258819403792806798405 * g;
}

// ---- Bessel functions of the first and second kind, orders 0 and 1 --------------------
// Beyond 5 both kinds share Hankel's asymptotic form: amplitudes P and Q of w = (5 / x)^2.
struct BesselPQ {
  double p, q;
};
AK_HD BesselPQ bessel_pq0(double w) {
  const double PP[7] = {
      +7.96936729297347051624e-04, +8.28352392107440799803e-02, +1.23953371646414299388e+00,
      +5.44725003058768775090e+00, +8.74716500199817011941e+00, +5.30324038235394892183e+00,
      +9.99999999999999997821e-01};
  const double PQ[7] = {
      +9.24408810558863637013e-04, +8.56288474354474431428e-02, +1.25352743901058953537e+00,
      +5.47097740330417105182e+00, +8.76190883237069594232e+00, +5.30605288235394617618e+00,
      +1.00000000000000000218e+00};
  const double QP[8] = {
      -1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
      -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
      -5.14105326766599330220e+01, -6.05014350600728481186e+00};
  const double QQ[7] = {
      +6.43178256118178023184e+01, +8.56430025976980587198e+02, +3.88240183605401609683e+03,
      +7.24046774195652478189e+03, +5.93072701187316984827e+03, +2.06209331660327847417e+03,
      +2.42005740240291393179e+02};
  return {horner(w, PP, 7) / horner(w, PQ, 7), horner(w, QP, 8) / horner(w, QQ, 7)};
}
AK_HD BesselPQ bessel_pq1(double w) {
  const double PP[7] = {
      +7.62125616208173112003e-04, +7.31397056940917570436e-02, +1.12719608129684925192e+00,
      +5.11207951146807644818e+00, +8.42404590141772420927e+00, +5.21451598682361504063e+00,
      +1.00000000000000000254e+00};
  const double PQ[7] = {
      +5.71323128072548699714e-04, +6.88455908754495404082e-02, +1.10514232634061696926e+00,
      +5.07386386128601488557e+00, +8.39985554327604159757e+00, +5.20982848682361821619e+00,
      +9.99999999999999997461e-01};
  const double QP[8] = {
      +5.10862594750176621635e-02, +4.98213872951233449420e+00, +7.58238284132545283818e+01,
      +3.66779609360150777800e+02, +7.10856304998926107277e+02, +5.97489612400613639965e+02,
      +2.11688757100572135698e+02, +2.52070205858023719784e+01};
  const double QQ[7] = {
      +7.42373277035675149943e+01, +1.05644886038262816351e+03, +4.98641058337653607651e+03,
      +9.56231892404756170795e+03, +7.99704160447350683650e+03, +2.82619278517639096600e+03,
      +3.36093607810698293419e+02};
  return {horner(w, PP, 7) / horner(w, PQ, 7), horner(w, QP, 8) / horner(w, QQ, 7)};
}

AK_HD double bessel_j0(double x) {
  x = fabs(x);
  if (x <= 5.0) {
    if (x < 0.00001) return 1.0 - x * x / 4.0;
    const double RP[4] = {
        -4.79443220978201773821e+09, +1.95617491946556577543e+12, -2.49248344360967716204e+14,
        +9.70862251047306323952e+15};
    const double RQ[8] = {
        +4.99563147152651017219e+02, +1.73785401676374683123e+05, +4.84409658339962045305e+07,
        +1.11855537045356834862e+10, +2.11277520115489217587e+12, +3.10518229857422583814e+14,
        +3.18121955943204943306e+16, +1.71086294081043136091e+18};
    const double z = x * x;
    // The first two zeros' squares, factored out.
    return (z - 5.78318596294678452118e+00) * (z - 3.04712623436620863991e+01) * horner(z, RP, 4) / horner(z, RQ, 8);
  }
  const BesselPQ a = bessel_pq0(25.0 / (x * x));
  return (a.p * cos(x - kPiOver4) - 5.0 / x * a.q * sin(x - kPiOver4)) * kSqrt2OverPi / sqrt(x);
}

AK_HD double bessel_j1(double x) {
  if (x < 0.0) return -bessel_j1(-x);
  if (x <= 5.0) {
    const double RP[4] = {
        -8.99971225705559398224e+08, +4.52228297998194034323e+11, -7.27494245221818276015e+13,
        +3.68295732863852883286e+15};
    const double RQ[8] = {
        +6.20836478118054335476e+02, +2.56987256757748830383e+05, +8.35146791431949253037e+07,
        +2.21511595479792499675e+10, +4.74914122079991414898e+12, +7.84369607876235854894e+14,
        +8.95222336184627338078e+16, +5.32278620332680085395e+18};
    const double z = x * x;
    return horner(z, RP, 4) / horner(z, RQ, 8) * x * (z - 1.46819706421238932572e+01) *
           (z - 4.92184563216946036703e+01);
  }
  const BesselPQ a = bessel_pq1(5.0 / x * (5.0 / x));
  return (a.p * cos(x - k3PiOver4) - 5.0 / x * a.q * sin(x - k3PiOver4)) * kSqrt2OverPi / sqrt(x);
}

// Y0 and Y1: -inf at 0, NaN below it.
AK_HD double bessel_y0(double x) {
  if (x <= 5.0) {
    if (x == 0.0) return -inf_d();
    if (x < 0.0) return nan_d();
    const double YP[8] = {
        +1.55924367855235737965e+04, -1.46639295903971606143e+07, +5.43526477051876500413e+09,
        -9.82136065717911466409e+11, +8.75906394395366999549e+13, -3.46628303384729719441e+15,
        +4.42733268572569800351e+16, -1.84950800436986690637e+16};
    const double YQ[7] = {
        +1.04128353664259848412e+03, +6.26107330137134956842e+05, +2.68919633393814121987e+08,
        +8.64002487103935000337e+10, +2.02979612750105546709e+13, +3.17157752842975028269e+15,
        +2.50596256172653059228e+17};
    const double z = x * x;
    return horner(z, YP, 8) / horner(z, YQ, 7) + kTwoOverPi * log(x) * bessel_j0(x);
  }
  const BesselPQ a = bessel_pq0(25.0 / (x * x));
  return (a.p * sin(x - kPiOver4) + 5.0 / x * a.q * cos(x - kPiOver4)) * kSqrt2OverPi / sqrt(x);
}

AK_HD double bessel_y1(double x) {
  if (x <= 5.0) {
    if (x == 0.0) return -inf_d();
    if (x <= 0.0) return nan_d();
    const double YP[6] = {
        +1.26320474790178026440e+09, -6.47355876379160291031e+11, +1.14509511541823727583e+14,
        -8.12770255501325109621e+15, +2.02439475713594898196e+17, -7.78877196265950026825e+17};
    const double YQ[8] = {
        +5.94301592346128195359e+02, +2.35564092943068577943e+05, +7.34811944459721705660e+07,
        +1.87601316108706159478e+10, +3.88231277496238566008e+12, +6.20557727146953693363e+14,
        +6.87141087355300489866e+16, +3.97270608116560655612e+18};
    const double z = x * x;
    return x * (horner(z, YP, 6) / horner(z, YQ, 8)) + kTwoOverPi * (bessel_j1(x) * log(x) - 1.0 / x);
  }
  const BesselPQ a = bessel_pq1(5.0 / x * (5.0 / x));
  return (a.p * sin(x - k3PiOver4) + 5.0 / x * a.q * cos(x - k3PiOver4)) * kSqrt2OverPi / sqrt(x);
}

// sin(x) / x (1 at 0; its Taylor series below 1/2, where the quotient loses digits).
AK_HD double spherical_bessel_j0(double x) {
  if (fabs(x) == inf_d()) return 0.0;
  if (fabs(x) < 0.5) {
    const double z = x * x;
    return 1.0 + z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5040.0 + z * (1.0 / 362880.0 +
           z * (-1.0 / 39916800.0 + z * (1.0 / 6227020800.0))))));
  }
  return sin(x) / x;
}

// ---- modified Bessel functions ---------------------------------------------------------
// exp(-|x|) I0(x) and exp(-|x|) I1(x): Chebyshev series on [0, 8] and in 32 / x beyond.
AK_HD double bessel_i0e(double x) {
  x = fabs(x);
  if (x <= 8.0) {
    const double A[30] = {
        -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
        1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
        -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
        9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
        -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
        1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
        -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
        1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
        -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
        1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1};
    return chbevl(x / 2.0 - 2.0, A, 30);
  }
  const double B[25] = {
      -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
      3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
      1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
      -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
      7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
      -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
      3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
      2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
      8.04490411014108831608E-1};
  return chbevl(32.0 / x - 2.0, B, 25) / sqrt(x);
}
AK_HD double bessel_i1e(double x) {
  const double ax = fabs(x);
  double r;
  if (ax <= 8.0) {
    const double A[29] = {
        2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
        -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
        3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
        -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
        9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
        -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
        4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
        -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
        2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
        -1.76416518357834055153E-1, 2.52587186443633654823E-1};
    r = chbevl(ax / 2.0 - 2.0, A, 29) * ax;
  } else {
    const double B[25] = {
        7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
        -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
        -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
        4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
        -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
        3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
        -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
        -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
        7.78576235018280120474E-1};
    r = chbevl(32.0 / ax - 2.0, B, 25) / sqrt(ax);
  }
  return x < 0.0 ? -r : r;
}
// I0 and I1 (torch.special.modified_bessel_i0/i1; torch.i0 keeps its power series).
AK_HD double modified_bessel_i0(double x) { return exp(fabs(x)) * bessel_i0e(x); }
AK_HD double modified_bessel_i1(double x) { return exp(fabs(x)) * bessel_i1e(x); }

// K0 and K1 of the second kind, and exp(x) K: inf at 0, NaN below. Up to 2 a Chebyshev
// series in x^2 plus the log term; beyond, exp(x) sqrt(x) K as a series in 8 / x.
// `scaled` chooses exp(x) K (torch's scaled_modified_bessel_k0/k1).
AK_HD double bessel_k0(double x, bool scaled) {
  if (x == 0.0) return inf_d();
  if (x < 0.0) return nan_d();
  if (x <= 2.0) {
    const double A[10] = {
        +1.37446543561352307156e-16, +4.25981614279661018399e-14, +1.03496952576338420167e-11,
        +1.90451637722020886025e-09, +2.53479107902614945675e-07, +2.28621210311945178607e-05,
        +1.26461541144692592338e-03, +3.59799365153615016266e-02, +3.44289899924628486886e-01,
        -5.35327393233902768720e-01};
    const double k = chbevl(x * x - 2.0, A, 10) - log(0.5 * x) * modified_bessel_i0(x);
    return scaled ? k * exp(x) : k;
  }
  const double B[25] = {
      +5.30043377268626276149e-18, -1.64758043015242134646e-17, +5.21039150503902756861e-17,
      -1.67823109680541210385e-16, +5.51205597852431940784e-16, -1.84859337734377901440e-15,
      +6.34007647740507060557e-15, -2.22751332699166985548e-14, +8.03289077536357521100e-14,
      -2.98009692317273043925e-13, +1.14034058820847496303e-12, -4.51459788337394416547e-12,
      +1.85594911495471785253e-11, -7.95748924447710747776e-11, +3.57739728140030116597e-10,
      -1.69753450938905987466e-09, +8.57403401741422608519e-09, -4.66048989768794782956e-08,
      +2.76681363944501510342e-07, -1.83175552271911948767e-06, +1.39498137188764993662e-05,
      -1.28495495816278026384e-04, +1.56988388573005337491e-03, -3.14481013119645005427e-02,
      +2.44030308206595545468e+00};
  const double ks = chbevl(8.0 / x - 2.0, B, 25) / sqrt(x);
  return scaled ? ks : exp(-x) * ks;
}
AK_HD double bessel_k1(double x, bool scaled) {
  if (x == 0.0) return inf_d();
  if (x < 0.0) return nan_d();
  if (x <= 2.0) {
    const double A[11] = {
        -7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
        -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
        -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
        -3.53155960776544875667e-01, +1.52530022733894777053e+00};
    const double k = log(0.5 * x) * modified_bessel_i1(x) + chbevl(x * x - 2.0, A, 11) / x;
    return scaled ? k * exp(x) : k;
  }
  const double B[25] = {
      -5.75674448366501715755e-18, +1.79405087314755922667e-17, -5.68946255844285935196e-17,
      +1.83809354436663880070e-16, -6.05704724837331885336e-16, +2.03870316562433424052e-15,
      -7.01983709041831346144e-15, +2.47715442448130437068e-14, -8.97670518232499435011e-14,
      +3.34841966607842919884e-13, -1.28917396095102890680e-12, +5.13963967348173025100e-12,
      -2.12996783842756842877e-11, +9.21831518760500529508e-11, -4.19035475934189648750e-10,
      +2.01504975519703286596e-09, -1.03457624656780970260e-08, +5.74108412545004946722e-08,
      -3.50196060308781257119e-07, +2.40648494783721712015e-06, -1.93619797416608296024e-05,
      +1.95215518471351631108e-04, -2.85781685962277938680e-03, +1.03923736576817238437e-01,
      +2.72062619048444266945e+00};
  const double ks = chbevl(8.0 / x - 2.0, B, 25) / sqrt(x);
  return scaled ? ks : exp(-x) * ks;
}

// ---- erfcx(x) = exp(x^2) erfc(x) -------------------------------------------------------
// exp(x^2) of x^2 = hi + lo split exactly, so that the product keeps the accuracy of erfc;
// from 26 (where erfc is about to underflow) the continued fraction
// 1 / (sqrt(pi) (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...))))), exact to rounding there.
AK_HD double exp_square(double x) {
  const double hi = x * x, lo = fma(x, x, -hi);
  return exp(hi) * exp(lo);
}
AK_HD double erfcx_nonneg(double x) {
  if (x < 26.0) return exp_square(x) * erfc(x);
  double t = x;
  for (int k = 16; k >= 1; --k) t = x + 0.5 * k / t;
  return kInvSqrtPi / t;
}
AK_HD double erfcx(double x) {
  if (x != x) return x;
  if (x >= 0.0) return erfcx_nonneg(x);
  if (x < -26.7) return inf_d();  // exp(x^2) overflows
  return 2.0 * exp_square(x) - erfcx_nonneg(-x);
}

// ---- orthogonal polynomials of degree n (torch.special.*_polynomial_*) ----------------
// n arrives in the tensor's dtype and is truncated to an integer; NaN, inf and values past
// int64 become negative (the answer of x86's conversion, which torch's cast gets), and a
// negative degree gives 0.
template <typename T>
AK_HD int64_t poly_degree(T n) {
  if (!(n >= T(-9.2e18) && n < T(9.2e18))) return -1;
  return static_cast<int64_t>(n);
}
AK_HD float acos_t(float x) { return acosf(x); }
AK_HD double acos_t(double x) { return acos(x); }
AK_HD float cos_t(float x) { return cosf(x); }
AK_HD double cos_t(double x) { return cos(x); }
AK_HD float sin_t(float x) { return sinf(x); }
AK_HD double sin_t(double x) { return sin(x); }

// The Chebyshev recurrence P_k = 2 y P_(k-1) - P_(k-2) from P_0 = 1 and P_1 = p1, up to
// degree n >= 2, stopping once a NaN appears (the kinds differ only in P_1).
template <typename T>
AK_HD T chebyshev_recurrence(T y, T p1, int64_t n) {
  T p = T(1), q = p1, r = p1;
  for (int64_t k = 2; k <= n && q == q; ++k) {
    r = (y + y) * q - p;
    p = q;
    q = r;
  }
  return r;
}

// T_n(x) (first kind); the shifted polynomial is T_n(2x - 1) with torch's own edge rules.
template <typename T>
AK_HD T chebyshev_t(T x, int64_t n) {
  if (n < 0) return T(0);
  if (fabs_(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(1) : T(-1);
  if (n > 6 && fabs_(x) < T(1)) return cos_t(T(n) * acos_t(x));
  if (n == 0) return T(1);
  if (n == 1) return x;
  return chebyshev_recurrence(x, x, n);
}
// U_n(x) (second kind).
template <typename T>
AK_HD T chebyshev_u(T x, int64_t n) {
  if (n < 0) return T(0);
  if (fabs_(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(n + 1) : T(-(n + 1));
  if (n > 8 && fabs_(x) < T(1)) {
    const T th = acos_t(x);
    if (sin_t(th) != T(0)) return sin_t(T(n + 1) * th) / sin_t(th);
    return T(n + 1) * cos_t(T(n + 1) * th) / x;
  }
  if (n == 0) return T(1);
  if (n == 1) return x + x;
  return chebyshev_recurrence(x, x + x, n);
}
// V_n(x) (third kind).
template <typename T>
AK_HD T chebyshev_v(T x, int64_t n) {
  if (n < 0) return T(0);
  const T odd_end = n % 2 == 0 ? T(n + n + 1) : T(-(n + n + 1));
  if (fabs_(x) == T(1)) return x > T(0) ? T(1) : odd_end;
  if (n > 8 && fabs_(x) < T(1)) {
    const T th = acos_t(x);
    if (sin_t(th / T(2)) != T(1)) return cos_t((T(n) + T(0.5)) * th) / cos_t(th / T(2));
    return odd_end;
  }
  if (n == 0) return T(1);
  if (n == 1) return x + x - T(1);
  return chebyshev_recurrence(x, x + x - T(1), n);
}
// W_n(x) (fourth kind).
template <typename T>
AK_HD T chebyshev_w(T x, int64_t n) {
  if (n < 0) return T(0);
  const T sign_end = n % 2 == 0 ? T(1) : T(-1);
  if (fabs_(x) == T(1)) return x > T(0) ? T(n + n + 1) : sign_end;
  if (n > 8 && fabs_(x) < T(1)) {
    const T th = acos_t(x);
    if (cos_t(th / T(2)) != T(1)) return sin_t((T(n) + T(0.5)) * th) / sin_t(th / T(2));
    return x > T(0) ? T(n + n + 1) : sign_end;
  }
  if (n == 0) return T(1);
  if (n == 1) return x + x + T(1);
  return chebyshev_recurrence(x, x + x + T(1), n);
}

// The shifted polynomials on [0, 1]: the kinds above at y = 2x - 1, with torch's edge
// values at x = 1 and x = 0 and its thresholds for the trigonometric forms.
template <typename T>
AK_HD T shifted_chebyshev_t(T x, int64_t n) {
  if (n < 0) return T(0);
  if (x == T(1)) return T(1);
  if (x == T(0)) return n % 2 == 0 ? T(1) : T(-1);
  const T y = x + x - T(1);
  if (n > 6 && fabs_(y) < T(1)) return cos_t(T(n) * acos_t(y));
  if (n == 0) return T(1);
  if (n == 1) return y;
  return chebyshev_recurrence(y, y, n);
}
template <typename T>
AK_HD T shifted_chebyshev_u(T x, int64_t n) {
  if (n < 0) return T(0);
  if (x == T(1)) return T(n + 1);
  if (x == T(0)) return n % 2 == 0 ? T(n + 1) : T(-(n + 1));
  const T y = x + x - T(1);
  if (n > 6 && fabs_(y) < T(1)) {
    const T th = acos_t(y);
    if (sin_t(th) != T(0)) return sin_t(T(n + 1) * th) / sin_t(th);
    return T(n + 1) * cos_t(T(n + 1) * th) / y;
  }
  if (n == 0) return T(1);
  if (n == 1) return y + y;
  return chebyshev_recurrence(y, y + y, n);
}
template <typename T>
AK_HD T shifted_chebyshev_v(T x, int64_t n) {
  if (n < 0) return T(0);
  const T odd_end = n % 2 == 0 ? T(n + n + 1) : T(-(n + n + 1));
  if (x == T(1)) return T(1);
  if (x == T(0)) return odd_end;
  const T y = x + x - T(1);
  if (n > 6 && fabs_(y) < T(1)) {
    const T th = acos_t(y);
    if (sin_t(th / T(2)) != T(1)) return cos_t((T(n) + T(0.5)) * th) / cos_t(th / T(2));
    return odd_end;
  }
  if (n == 0) return T(1);
  if (n == 1) return y + y - T(1);
  return chebyshev_recurrence(y, y + y - T(1), n);
}
template <typename T>
AK_HD T shifted_chebyshev_w(T x, int64_t n) {
  if (n < 0) return T(0);
  const T sign_end = n % 2 == 0 ? T(1) : T(-1);
  if (x == T(1)) return T(n + n + 1);
  if (x == T(0)) return sign_end;
  const T y = x + x - T(1);
  if (n > 4 && fabs_(y) < T(1)) {
    const T th = acos_t(y);
    if (cos_t(th / T(2)) != T(1)) return sin_t((T(n) + T(0.5)) * th) / sin_t(th / T(2));
    return sign_end;
  }
  if (n == 0) return T(1);
  if (n == 1) return y + y + T(1);
  return chebyshev_recurrence(y, y + y + T(1), n);
}

// Hermite polynomials: physicists' H_n and probabilists' He_n. torch gives NaN past a
// degree that depends on the dtype (128 for float32, 512 for float64).
template <typename T>
AK_HD int64_t hermite_limit() { return sizeof(T) == 4 ? 128 : 512; }
template <typename T>
AK_HD T hermite_h(T x, int64_t n) {
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  if (n == 1) return x + x;
  if (n > hermite_limit<T>()) return std::numeric_limits<T>::quiet_NaN();
  T p = T(1), q = x + x, r = T(0);
  for (int64_t k = 2; k < n + n; k += 2) {
    r = (x + x) * q - T(k) * p;
    p = q;
    q = r;
  }
  return r;
}
template <typename T>
AK_HD T hermite_he(T x, int64_t n) {
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  if (n == 1) return x;
  if (n > hermite_limit<T>()) return std::numeric_limits<T>::quiet_NaN();
  T p = T(1), q = x, r = T(0);
  for (int64_t k = 1; k < n; ++k) {
    r = x * q - T(k) * p;
    p = q;
    q = r;
  }
  return r;
}

// Laguerre L_n(x): (k + 1) L_(k+1) = (2k + 1 - x) L_k - k L_(k-1).
template <typename T>
AK_HD T laguerre_l(T x, int64_t n) {
  if (n < 0) return T(0);
  if (fabs_(x) == T(0)) return T(1);
  if (n == 0) return T(1);
  if (n == 1) return T(1) - x;
  T p = T(1), q = T(1) - x, r = q;
  for (int64_t k = 1; k < n && q == q; ++k) {
    r = ((T(k + k) + (T(1) - x)) * q - T(k) * p) / T(k + 1);
    p = q;
    q = r;
  }
  return r;
}

// Legendre P_n(x): (k + 1) P_(k+1) = (2k + 1) x P_k - k P_(k-1).
template <typename T>
AK_HD T legendre_p(T x, int64_t n) {
  if (n < 0) return T(0);
  if (fabs_(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(1) : T(-1);
  if (n == 0) return T(1);
  if (n == 1) return x;
  T p = T(1), q = x, r = x;
  for (int64_t k = 1; k < n && q == q; ++k) {
    r = (T(k + k + 1) * x * q - T(k) * p) / T(k + 1);
    p = q;
    q = r;
  }
  return r;
}

// ---- the ops' dispatch, shared by both devices ------------------------------------------
// One switch per element: each of these costs tens of nanoseconds, so the branch on an op
// every element shares is lost in the noise (and no loop of them vectorises anyway).
AK_HD constexpr bool is_special_unary(UnaryOp op) { return op >= UnaryOp::AiryAi && op <= UnaryOp::Erfcx; }
AK_HD constexpr bool is_special_binary(BinaryOp op) { return op >= BinaryOp::Zeta && op <= BinaryOp::LegendreP; }

template <typename T>
AK_HD T special_unary(UnaryOp op, T xt) {
  const double x = static_cast<double>(xt);
  double r = x;
  switch (op) {
    case UnaryOp::AiryAi: r = airy_ai(x); break;
    case UnaryOp::BesselJ0: r = bessel_j0(x); break;
    case UnaryOp::BesselJ1: r = bessel_j1(x); break;
    case UnaryOp::BesselY0: r = bessel_y0(x); break;
    case UnaryOp::BesselY1: r = bessel_y1(x); break;
    case UnaryOp::ModifiedBesselI0: r = modified_bessel_i0(x); break;
    case UnaryOp::ModifiedBesselI1: r = modified_bessel_i1(x); break;
    case UnaryOp::ModifiedBesselK0: r = bessel_k0(x, false); break;
    case UnaryOp::ModifiedBesselK1: r = bessel_k1(x, false); break;
    case UnaryOp::ScaledModifiedBesselK0: r = bessel_k0(x, true); break;
    case UnaryOp::ScaledModifiedBesselK1: r = bessel_k1(x, true); break;
    case UnaryOp::SphericalBesselJ0: r = spherical_bessel_j0(x); break;
    case UnaryOp::I0e: r = bessel_i0e(x); break;
    case UnaryOp::I1e: r = bessel_i1e(x); break;
    case UnaryOp::Erfcx: r = erfcx(x); break;
    default: break;
  }
  return static_cast<T>(r);
}

// zeta(x, q) and the polynomials P_n(x) (x first, n second, as torch's arguments).
template <typename T>
AK_HD T special_binary(BinaryOp op, T x, T n) {
  switch (op) {
    case BinaryOp::Zeta: return static_cast<T>(hurwitz_zeta(static_cast<double>(x), static_cast<double>(n)));
    case BinaryOp::ChebyshevT: return chebyshev_t(x, poly_degree(n));
    case BinaryOp::ChebyshevU: return chebyshev_u(x, poly_degree(n));
    case BinaryOp::ChebyshevV: return chebyshev_v(x, poly_degree(n));
    case BinaryOp::ChebyshevW: return chebyshev_w(x, poly_degree(n));
    case BinaryOp::ShiftedChebyshevT: return shifted_chebyshev_t(x, poly_degree(n));
    case BinaryOp::ShiftedChebyshevU: return shifted_chebyshev_u(x, poly_degree(n));
    case BinaryOp::ShiftedChebyshevV: return shifted_chebyshev_v(x, poly_degree(n));
    case BinaryOp::ShiftedChebyshevW: return shifted_chebyshev_w(x, poly_degree(n));
    case BinaryOp::HermiteH: return hermite_h(x, poly_degree(n));
    case BinaryOp::HermiteHe: return hermite_he(x, poly_degree(n));
    case BinaryOp::LaguerreL: return laguerre_l(x, poly_degree(n));
    case BinaryOp::LegendreP: return legendre_p(x, poly_degree(n));
    default: return x;
  }
}

}  // namespace
}  // namespace aakaar::emath
