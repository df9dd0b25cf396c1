// JUnit: the session as JUnit XML (`--report-junit FILE`), the format CI
// servers (Jenkins, GitLab) read. The element structure mirrors ReFrame's
// junit_xml_report (reframe/frontend/runreport.py) and the Jenkins JUnit
// XSD it validates against (reframe/schemas/junit.xsd):
//   <testsuites>
//     <testsuite name="hetbench" id="0" package="hetbench" tests= failures=
//                errors= skipped= time= timestamp= hostname=>
//       <properties/>
//       <testcase classname="<test name>"
//                 name="<display name> @<system:partition>+<environ>" time=>
//         <failure type="<stage>" message="<stage>: <reason>">details</failure>
//         | <skipped message="<reason>"/> | <error type="cancelled" .../>
//       </testcase>
//       <system-out/> <system-err/>
//     </testsuite>
//   </testsuites>
// A failed case counts in failures, a cancelled (interrupted) one in
// errors, a skipped one in skipped. Repetitions and retries get " [rep N]"
// and " [retry N]" so names stay unique. The timestamp is local time
// without a zone (the XSD's xs:dateTime, as ReFrame strips it); times are
// plain decimals. Text is escaped for XML 1.0: characters XML cannot carry
// and malformed UTF-8 become U+FFFD.
//
// Pure functions apart from the file write.
#pragma once

#include <string>
#include <vector>

#include "results/case_result.h"
#include "util/status.h"

namespace hb {

std::string JunitXml(const SessionInfo& session, const std::vector<CaseResult>& cases);
// Writes JunitXml atomically.
Status WriteJunit(const std::string& path, const SessionInfo& session, const std::vector<CaseResult>& cases);

// Escapes text for an XML attribute value or element content.
std::string XmlEscape(const std::string& s);

}  // namespace hb
